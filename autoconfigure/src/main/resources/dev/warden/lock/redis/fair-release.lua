-- Releases one hold of a fair lock; the last one frees it and wakes the first waiter only.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the waiters' queue
-- KEYS[3]  the waiters' deadlines
-- ARGV[1]  owner id
-- ARGV[2]  the lock's channel, redisson_lock__channel:{name}; each waiter listens on
--          <channel>:<owner id>
--
-- Returns  nil when the owner holds nothing; 0 when it still holds the lock; 1 when freed (message 0
--          published to the first live waiter).
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
local holds = redis.call('hget', KEYS[1], ARGV[1])
if holds == false then
    return nil
end
if tonumber(holds) > 1 then
    redis.call('hincrby', KEYS[1], ARGV[1], -1)
    return 0
end
redis.call('del', KEYS[1])
local next = redis.call('lindex', KEYS[2], 0)
if next ~= false then
    redis.call('publish', ARGV[2] .. ':' .. next, '0')
end
return 1
