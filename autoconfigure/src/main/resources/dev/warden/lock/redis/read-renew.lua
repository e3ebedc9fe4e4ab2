-- Extends the lease of an owner's read holds (the watchdog's renewal).
--
-- KEYS[1]  the lock hash
-- KEYS[2]  this owner's read-hold timeout prefix, {name}:<owner id>:rwlock_timeout
-- ARGV[1]  new lease in milliseconds
-- ARGV[2]  owner id
--
-- Returns  1 when renewed; 0 when the owner holds no read hold.
local holds = tonumber(redis.call('hget', KEYS[1], ARGV[2]))
if holds == nil then
    return 0
end
for hold = holds, 1, -1 do
    redis.call('pexpire', KEYS[2] .. ':' .. hold, ARGV[1])
end
redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1])))
return 1
