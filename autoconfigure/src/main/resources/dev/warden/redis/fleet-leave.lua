-- One instance leaves the fleet registry (see fleet-announce.lua) at a clean shutdown; the registry's
-- keys go when no member is left.
--
-- KEYS[1]  the instances hash
-- KEYS[2]  the expiry zset
-- ARGV[1]  the client id
--
-- Returns  1 when the instance was a member, 0 otherwise
local removed = redis.call('zrem', KEYS[2], ARGV[1])
redis.call('hdel', KEYS[1], ARGV[1])
if redis.call('zcard', KEYS[2]) == 0 then
    redis.call('del', KEYS[1], KEYS[2])
end
return removed
