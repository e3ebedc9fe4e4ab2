-- Acquires or re-enters a reentrant lock (the layout of Redisson's RLock).
--
-- KEYS[1]  the lock: a hash, field = owner id, value = that owner's hold count
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id, <clientId>:<n>
--
-- Returns  nil when acquired: the owner's hold count is incremented and the lease reset;
--          otherwise the lock's remaining time to live in milliseconds (-1: the key has no expiry).
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
