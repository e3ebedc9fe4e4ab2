-- Counts the permits available in a permit-expirable semaphore.
--
-- KEYS[1]  the capacity
-- KEYS[2]  the permits out (zset)
--
-- Returns  capacity minus the permits out that have not expired.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local capacity = tonumber(redis.call('get', KEYS[1]) or '0')
return capacity - redis.call('zcount', KEYS[2], '(' .. now, '+inf')
