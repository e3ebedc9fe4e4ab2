-- Counts the permits available in a permit-expirable semaphore.
--
-- KEYS[1]  the capacity
-- KEYS[2]  the permits out (zset)
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  capacity minus the permits out that have not expired.
local _, now = redisClock()
local capacity = tonumber(redis.call('get', KEYS[1]) or '0')
return capacity - redis.call('zcount', KEYS[2], '(' .. now, '+inf')
