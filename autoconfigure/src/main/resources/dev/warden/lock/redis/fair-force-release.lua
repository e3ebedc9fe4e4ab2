-- Deletes a fair lock whoever holds it and wakes the first live waiter.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the waiters' queue
-- KEYS[3]  the waiters' deadlines
-- ARGV[1]  the lock's channel
-- Drops expired waiters with dropExpiredWaiters (fair-queue.lua, a prelude).
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  1 when the lock was held; 0 otherwise.
local _, now = redisClock()
dropExpiredWaiters(KEYS[2], KEYS[3], now)
if redis.call('del', KEYS[1]) == 0 then
    return 0
end
local next = redis.call('lindex', KEYS[2], 0)
if next ~= false then
    redis.call('publish', ARGV[1] .. ':' .. next, '0')
end
return 1
