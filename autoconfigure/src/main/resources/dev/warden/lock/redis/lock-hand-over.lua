-- Releases one hold of a reentrant lock; when that frees it, hands it straight to a waiter of the
-- releasing client instead of publishing the release (the waiter is woken in its own process, so
-- the lock is never free for a moment and no retry is needed).
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's fencing counter
-- ARGV[1]  the releasing owner id
-- ARGV[2]  the next owner id (a waiter that holds no hold of this lock)
-- ARGV[3]  the next owner's lease in milliseconds
--
-- Returns  {-1, 0} when the releasing owner holds no hold (never held, expired, or force-released);
--          {0, 0} when it still holds the lock (nothing is handed over);
--          {1, token} when the lock passed to the next owner with one hold, a fresh lease, and the
--          next fencing token.
local holds = redis.call('hget', KEYS[1], ARGV[1])
if holds == false then
    return {-1, 0}
end
if tonumber(holds) > 1 then
    redis.call('hincrby', KEYS[1], ARGV[1], -1)
    return {0, 0}
end
redis.call('del', KEYS[1])
redis.call('hset', KEYS[1], ARGV[2], 1)
redis.call('pexpire', KEYS[1], ARGV[3])
return {1, redis.call('incr', KEYS[2])}
