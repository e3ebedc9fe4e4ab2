-- Trims an owner's hold count of a lock to the count its client knows of: the holds above it were
-- taken by acquisitions whose reply was lost (the caller saw a failure), so nobody would ever
-- release them, and under the watchdog they would keep the lock for the life of the client.
--
-- KEYS[1]  the lock: a hash, field = hold field, value = hold count
-- ARGV[1]  the owner's hold field
-- ARGV[2]  the hold count the client knows of (>= 1)
--
-- Returns  how many holds were dropped (0 when the count was not above the known one, or the owner
--          holds nothing).
local holds = tonumber(redis.call('hget', KEYS[1], ARGV[1]))
local known = tonumber(ARGV[2])
if holds == nil or holds <= known then
    return 0
end
redis.call('hset', KEYS[1], ARGV[1], known)
return holds - known
