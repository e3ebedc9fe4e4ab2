-- Releases a simple lock when the releasing owner holds it (compare and delete), and wakes waiters
-- with message 0 on the lock's channel.
--
-- KEYS[1]  the lock: a string, value = owner id
-- ARGV[1]  the releasing owner id, <clientId>:<n>
-- ARGV[2]  the lock's release channel, redisson_lock__channel:{name} (an argument, not a key: a
--          channel has no hash slot)
--
-- Returns  1 when the lock was freed (message 0 published); 0 when the owner does not hold it (never
--          held, expired, force-released, or held by another): nothing changed.
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('del', KEYS[1])
    redis.call('publish', ARGV[2], '0')
    return 1
end
return 0
