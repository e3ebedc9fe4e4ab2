-- Deletes a read-write lock held in the given mode, whoever holds it, and wakes every waiter.
--
-- KEYS[1]  the lock hash
-- ARGV[1]  'read' or 'write'
-- ARGV[2]  the lock's channel
--
-- Returns  1 when the lock was held in that mode and is now freed; 0 otherwise.
if redis.call('hget', KEYS[1], 'mode') == ARGV[1] then
    redis.call('del', KEYS[1])
    redis.call('publish', ARGV[2], '1')
    return 1
end
return 0
