-- Deletes a reentrant or simple lock whoever holds it and wakes waiters.
--
-- KEYS[1]  the lock: a hash (reentrant) or a string (simple)
-- ARGV[1]  the lock's release channel, redisson_lock__channel:{name}
--
-- Returns  1 when the lock was held and is now freed (message 0 published); 0 when it was free.
if redis.call('del', KEYS[1]) == 1 then
    redis.call('publish', ARGV[1], '0')
    return 1
end
return 0
