-- Releases one hold of a fair lock (the layout of Redisson's fair RLock). When that frees it and the
-- first waiter is the given waiter of the releasing client, hands the lock straight to it (no
-- message, no retry); otherwise wakes the first waiter only, on its own channel.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the waiters' queue
-- KEYS[3]  the waiters' deadlines
-- KEYS[4]  the fencing counter of the lock's hash slot
-- ARGV[1]  the releasing owner id
-- ARGV[2]  the lock's channel, redisson_lock__channel:{name}; each waiter listens on
--          <channel>:<owner id>
-- ARGV[3]  the waiter to hand the lock to if it is first in the queue, or '' to release plainly
-- ARGV[4]  that waiter's lease in milliseconds
-- ARGV[5]  how long a waiter keeps its place once its turn could have come, in ms
-- ARGV[6]  '1' when that waiter takes a fencing token, '0' when it does not
-- Drops expired waiters with dropExpiredWaiters (fair-queue.lua, a prelude).
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
-- Releases the hold with releaseOneHold (lock-hold.lua, a prelude).
--
-- Returns  -1 when the owner holds nothing; 0 when it still holds the lock; the next fencing token
--          (>= 1) when the lock passed to ARGV[3] (it left the queue, with one hold and its lease), or
--          -3 when it passed to a waiter that takes no token;
--          -2 when freed otherwise (message 0 published to the first live waiter, if any).
local _, now = redisClock()
dropExpiredWaiters(KEYS[2], KEYS[3], now)
local kept = releaseOneHold(KEYS[1], ARGV[1])
if kept then
    return kept
end
local next = redis.call('lindex', KEYS[2], 0)
if next == ARGV[3] then
    redis.call('lpop', KEYS[2])
    redis.call('zrem', KEYS[3], next)
    -- Everyone behind moved up one place: their deadlines come one waiter's time sooner.
    for _, waiter in ipairs(redis.call('zrange', KEYS[3], 0, -1)) do
        redis.call('zincrby', KEYS[3], -tonumber(ARGV[5]), waiter)
    end
    redis.call('hset', KEYS[1], next, 1)
    redis.call('pexpire', KEYS[1], ARGV[4])
    local token = holdToken(KEYS[1], next, KEYS[4], ARGV[6])
    return (token > 0) and token or -3
end
if next ~= false then
    redis.call('publish', ARGV[2] .. ':' .. next, '0')
end
return -2
