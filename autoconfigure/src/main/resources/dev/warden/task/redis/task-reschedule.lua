-- Moves the due time of a pending task (not one in flight).
--
-- KEYS[1]  due zset
-- ARGV[1]  task id
-- ARGV[2]  'in': ARGV[3] is a delay in ms from Redis's clock; 'at': ARGV[3] is an epoch ms
-- ARGV[3]  the delay or the due time
-- ARGV[4]  the queue's wake-up channel (a message is the µs until the task it announces is due)
--
-- Returns  the new due time (epoch ms); -1 when no such task is pending.
if redis.call('zscore', KEYS[1], ARGV[1]) == false then
    return -1
end
local time = redis.call('TIME')
local micros = tonumber(time[1]) * 1000000 + tonumber(time[2])
local now = math.floor(micros / 1000)
local due = tonumber(ARGV[3])
if ARGV[2] == 'in' then
    due = now + due
end
local head = redis.call('zrange', KEYS[1], 0, 0, 'WITHSCORES')
redis.call('zadd', KEYS[1], due, ARGV[1])
if due < tonumber(head[2]) or head[1] == ARGV[1] then
    redis.call('publish', ARGV[4], string.format('%d', math.max(0, due * 1000 - micros)))
end
return due
