-- Releases one write hold. The last one frees the lock (or leaves it to the owner's own read
-- holds) and wakes every waiter.
--
-- KEYS[1]  the lock hash
-- ARGV[1]  the owner's write field, <owner id>:write
-- ARGV[2]  the lock's channel, redisson_rwlock:{name}
--
-- Returns  nil when the owner holds no write hold; 0 when it still does; 1 when its last write hold
--          was released (message 1 published).
if redis.call('hget', KEYS[1], 'mode') ~= 'write' or redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return nil
end
if redis.call('hincrby', KEYS[1], ARGV[1], -1) > 0 then
    return 0
end
redis.call('hdel', KEYS[1], ARGV[1], ARGV[1] .. ':fence')
if redis.call('hlen', KEYS[1]) == 1 then
    redis.call('del', KEYS[1])
else
    -- The writer also holds read holds: the lock stays, shared now.
    redis.call('hset', KEYS[1], 'mode', 'read')
end
redis.call('publish', ARGV[2], '1')
return 1
