-- Schedules tasks, idempotently by task id. A client sends the schedules of one queue that its
-- callers make while its previous call is under way together, in one call.
--
-- KEYS[1]  due: zset, task id -> due time (epoch ms, Redis clock)
-- KEYS[2]  tasks: hash, task id -> payload (the only copy of the payload)
-- KEYS[3]  in flight: zset, task id -> visibility deadline (epoch ms)
-- KEYS[4]  meta: hash, a:<task id> -> deliveries so far, c:<task id> -> token of the delivery under
--          way, e:<task id> -> last handler error
-- ARGV[1]  the queue's wake-up channel
-- ARGV[2…] one group of five per task, in order:
--          task id;
--          payload;
--          'in': the next is a delay in ms from Redis's clock; 'at': it is an epoch ms;
--          the delay or the due time;
--          '1' to replace a task of that id that is already pending or in flight, else '0'
--
-- Returns  {status, due, now} per task, flattened: status 1 scheduled, 2 replaced, 0 already pending
--          and kept as it is (due is then its due time, or -1 while it is in flight); now is Redis's
--          clock. When a task becomes the earliest due, its delay is published on the channel.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local head = redis.call('zrange', KEYS[1], 0, 0, 'WITHSCORES')
local headDue = head[2] and tonumber(head[2])
local earliest = nil
local out = {}
for i = 2, #ARGV - 4, 5 do
    local id = ARGV[i]
    local due = tonumber(ARGV[i + 3])
    if ARGV[i + 2] == 'in' then
        due = now + due
    end
    local exists = redis.call('hexists', KEYS[2], id) == 1
    if exists and ARGV[i + 4] ~= '1' then
        local score = redis.call('zscore', KEYS[1], id)
        out[#out + 1] = 0
        out[#out + 1] = score and tonumber(score) or -1
    else
        if exists then
            -- The delivery under way, if any, no longer matches its claim: its acknowledgement is ignored.
            redis.call('zrem', KEYS[3], id)
            redis.call('hdel', KEYS[4], 'a:' .. id, 'c:' .. id, 'e:' .. id)
        end
        redis.call('hset', KEYS[2], id, ARGV[i + 1])
        redis.call('zadd', KEYS[1], due, id)
        if earliest == nil or due < earliest then
            earliest = due
        end
        out[#out + 1] = exists and 2 or 1
        out[#out + 1] = due
    end
    out[#out + 1] = now
end
if earliest ~= nil and (headDue == nil or earliest < headDue) then
    redis.call('publish', ARGV[1], tostring(math.max(0, earliest - now)))
end
return out
