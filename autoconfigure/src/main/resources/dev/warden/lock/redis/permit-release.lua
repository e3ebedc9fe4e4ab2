-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
-- Returns one permit of a permit-expirable semaphore, by its id.
--
-- KEYS[1]  the permits out (zset)
-- ARGV[1]  the permit id
-- ARGV[2]  the semaphore's channel
--
-- Returns  1 when returned (message 1 published); 0 when no such permit is out (never taken,
--          released already, or expired).
local _, now = redisClock()
local expiry = redis.call('zscore', KEYS[1], ARGV[1])
if expiry == false or tonumber(expiry) <= now then
    return 0
end
redis.call('zrem', KEYS[1], ARGV[1])
redis.call('publish', ARGV[2], '1')
return 1
