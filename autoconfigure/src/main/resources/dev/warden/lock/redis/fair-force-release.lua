-- Deletes a fair lock whoever holds it and wakes the first live waiter.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the waiters' queue
-- KEYS[3]  the waiters' deadlines
-- ARGV[1]  the lock's channel
--
-- Returns  1 when the lock was held; 0 otherwise.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
while true do
    local first = redis.call('lindex', KEYS[2], 0)
    if first == false then
        break
    end
    local deadline = redis.call('zscore', KEYS[3], first)
    if deadline == false or tonumber(deadline) > now then
        break
    end
    redis.call('zrem', KEYS[3], first)
    redis.call('lpop', KEYS[2])
end
if redis.call('del', KEYS[1]) == 0 then
    return 0
end
local next = redis.call('lindex', KEYS[2], 0)
if next ~= false then
    redis.call('publish', ARGV[1] .. ':' .. next, '0')
end
return 1
