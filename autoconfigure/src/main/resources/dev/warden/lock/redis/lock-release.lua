-- Releases one hold of a reentrant lock; the last hold frees it and wakes waiters.
--
-- KEYS[1]  the lock hash
-- ARGV[1]  owner id, <clientId>:<n>
-- ARGV[2]  the lock's release channel, redisson_lock__channel:{name} (passed as an argument, not a
--          key: a channel has no hash slot)
--
-- Returns  nil when the owner holds no hold (never held, expired, or force-released);
--          0 when the owner still holds the lock (its lease is left as it is);
--          1 when the lock was freed: the key is deleted and message 0 published on the channel.
local holds = redis.call('hget', KEYS[1], ARGV[1])
if holds == false then
    return nil
end
if tonumber(holds) > 1 then
    redis.call('hincrby', KEYS[1], ARGV[1], -1)
    return 0
end
redis.call('del', KEYS[1])
redis.call('publish', ARGV[2], '0')
return 1
