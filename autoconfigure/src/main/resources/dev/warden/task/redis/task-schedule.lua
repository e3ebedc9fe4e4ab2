-- Schedules a task, idempotently by task id.
--
-- KEYS[1]  due: zset, task id -> due time (epoch ms, Redis clock)
-- KEYS[2]  tasks: hash, task id -> payload (the only copy of the payload)
-- KEYS[3]  in flight: zset, task id -> visibility deadline (epoch ms)
-- KEYS[4]  meta: hash, a:<task id> -> deliveries so far, c:<task id> -> token of the delivery under
--          way, e:<task id> -> last handler error
-- ARGV[1]  task id
-- ARGV[2]  payload
-- ARGV[3]  'in': ARGV[4] is a delay in ms from Redis's clock; 'at': ARGV[4] is an epoch ms
-- ARGV[4]  the delay or the due time
-- ARGV[5]  '1' to replace a task of that id that is already pending or in flight, else '0'
-- ARGV[6]  the queue's wake-up channel
--
-- Returns  {status, due, now}: status 1 scheduled, 2 replaced, 0 already pending and kept as it
--          is (due is then its due time, or -1 while it is in flight); now is Redis's clock.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local due = tonumber(ARGV[4])
if ARGV[3] == 'in' then
    due = now + due
end
local exists = redis.call('hexists', KEYS[2], ARGV[1]) == 1
if exists and ARGV[5] ~= '1' then
    local score = redis.call('zscore', KEYS[1], ARGV[1])
    return {0, score and tonumber(score) or -1, now}
end
if exists then
    -- The delivery under way, if any, no longer matches its claim: its acknowledgement is ignored.
    redis.call('zrem', KEYS[3], ARGV[1])
    redis.call('hdel', KEYS[4], 'a:' .. ARGV[1], 'c:' .. ARGV[1], 'e:' .. ARGV[1])
end
local head = redis.call('zrange', KEYS[1], 0, 0, 'WITHSCORES')
redis.call('hset', KEYS[2], ARGV[1], ARGV[2])
redis.call('zadd', KEYS[1], due, ARGV[1])
if head[2] == nil or due < tonumber(head[2]) then
    redis.call('publish', ARGV[6], tostring(math.max(0, due - now)))
end
if exists then
    return {2, due, now}
end
return {1, due, now}
