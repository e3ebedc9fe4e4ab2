-- Acquires or re-enters the write side of a read-write lock: one writer, no readers but itself.
--
-- KEYS[1]  the lock hash
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the owner's write field, <owner id>:write
--
-- Returns  nil when acquired; otherwise the lock's remaining time to live in ms.
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'write', ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1])))
    return nil
end
return redis.call('pttl', KEYS[1])
