-- Acquires or re-enters the read side of a read-write lock (the layout of Redisson's
-- RReadWriteLock). Readers share the lock; the owner of the write lock may also read.
--
-- KEYS[1]  the lock: a hash with field 'mode' ('read' or 'write'), the readers' owner ids -> their
--          read holds, and the writer's '<owner id>:write' -> its write holds
-- KEYS[2]  this owner's read-hold timeout prefix, {name}:<owner id>:rwlock_timeout; each read hold n
--          has a key <prefix>:<n> that expires with that hold's lease
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id
-- ARGV[3]  the owner's write field, <owner id>:write
--
-- Returns  0 when acquired (readers get no fencing token); -2 - pttl while a writer holds it (see
--          lock-acquire.lua).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'read', ARGV[2], 1)
    redis.call('set', KEYS[2] .. ':1', 1, 'px', ARGV[1])
    redis.call('pexpire', KEYS[1], ARGV[1])
    return 0
end
if mode == 'read' or redis.call('hexists', KEYS[1], ARGV[3]) == 1 then
    local hold = redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('set', KEYS[2] .. ':' .. hold, 1, 'px', ARGV[1])
    redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1])))
    return 0
end
return -2 - redis.call('pttl', KEYS[1])
