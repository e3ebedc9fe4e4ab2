-- Schedules tasks, idempotently by task id. A client sends the schedules of one queue that its
-- callers make while its previous call is under way together, in one call; the writes of the whole
-- batch go in one variadic command per key. Runs after task-batch.lua (variadic, hmget, metaFields),
-- task-claim-state.lua (splitClaim) and task-revoke.lua (waitingToStart, waitingClaim, revoke).
--
-- KEYS[1]  due: zset, task id -> due time (epoch ms, Redis clock)
-- KEYS[2]  tasks: hash, task id -> payload (the only copy of the payload)
-- KEYS[3]  in flight: zset, task id -> visibility deadline (epoch ms)
-- KEYS[4]  meta: hash, a:<task id> -> deliveries so far, c:<task id> -> token of the delivery under
--          way (x:<task id> both, in format 2: task-claim-state.lua), e:<task id> -> last handler
--          error, d:<task id> -> due time of a task claimed ahead, h:<task id> -> the trace context of
--          the code that scheduled it
-- ARGV[1]  the queue's channel (a wake-up message is the µs until the task it announces is due)
-- ARGV[2…] one group of six per task, in order:
--          task id;
--          payload;
--          'in': the next is a delay in ms from Redis's clock; 'at': it is an epoch ms;
--          the delay or the due time;
--          '1' to replace a task of that id that is already pending or in flight, else '0';
--          its trace context (propagation headers, encoded by the client), '' for none
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  {status, due, now} per task, flattened: status 1 scheduled, 2 replaced, 0 already pending
--          and kept as it is (due is then its due time, or -1 while it runs); now is Redis's clock. A
--          task of the batch sees those before it as already pending. When a task becomes the
--          earliest due, its delay in µs is published on the channel. Replacing a task claimed ahead
--          that has not started revokes that claim.
local micros, now = redisClock()
local head = redis.call('zrange', KEYS[1], 0, 0, 'WITHSCORES')
local headDue = head[2] and tonumber(head[2])
local earliest = nil
local out = {}
-- The tasks this call writes: id -> {payload, due}, and their ids in order.
local written = {}
local order = {}
-- Tasks replaced while in flight: the delivery under way no longer matches its claim.
local discarded = {}
-- Which of the batch's tasks exist already, read in one command: their payloads, false if none.
local ids = {}
for i = 2, #ARGV - 5, 6 do
    ids[#ids + 1] = ARGV[i]
end
local stored = hmget(KEYS[2], ids)
for i = 2, #ARGV - 5, 6 do
    local id = ARGV[i]
    local due = tonumber(ARGV[i + 3])
    if ARGV[i + 2] == 'in' then
        due = now + due
    end
    local mine = written[id]
    local exists = mine ~= nil or stored[(i + 4) / 6] ~= false
    if exists and ARGV[i + 4] ~= '1' then
        local score = mine and mine.due or redis.call('zscore', KEYS[1], id)
        if not score then
            local _, aheadDue = waitingClaim(KEYS[4], id, now)
            score = aheadDue
        end
        out[#out + 1] = 0
        score = score and tonumber(score) or -1
        -- A task deferred by its queue's limits is scored 1e15 past its due time (task-limits.lua).
        out[#out + 1] = (score >= 1e15) and (score - 1e15) or score
    else
        if mine == nil then
            if exists then
                discarded[#discarded + 1] = id
            end
            mine = {}
            written[id] = mine
            order[#order + 1] = id
        end
        mine.payload = ARGV[i + 1]
        mine.due = due
        mine.headers = ARGV[i + 5]
        if earliest == nil or due < earliest then
            earliest = due
        end
        out[#out + 1] = exists and 2 or 1
        out[#out + 1] = due
    end
    out[#out + 1] = now
end
if #discarded > 0 then
    local claimFields = {}
    for _, id in ipairs(discarded) do
        claimFields[#claimFields + 1] = 'c:' .. id
        claimFields[#claimFields + 1] = 'd:' .. id
        claimFields[#claimFields + 1] = 'x:' .. id
    end
    local claims = hmget(KEYS[4], claimFields)
    for i, id in ipairs(discarded) do
        -- A claim of either format (task-claim-state.lua): c:<id> first, as currentClaim reads it.
        local token = claims[3 * i - 2] or splitClaim(claims[3 * i])
        if token and waitingToStart(claims[3 * i - 1], now) then
            revoke(ARGV[1], token, id)
        end
    end
    variadic('zrem', KEYS[3], discarded)
    variadic('hdel', KEYS[4], metaFields(discarded))
end
if #order > 0 then
    local payloads = {}
    local dues = {}
    for _, id in ipairs(order) do
        payloads[#payloads + 1] = id
        payloads[#payloads + 1] = written[id].payload
        dues[#dues + 1] = written[id].due
        dues[#dues + 1] = id
    end
    variadic('hset', KEYS[2], payloads)
    variadic('zadd', KEYS[1], dues)
    -- A replaced task's old context went with its other meta fields (metaFields) above.
    local headers = {}
    for _, id in ipairs(order) do
        if written[id].headers ~= '' then
            headers[#headers + 1] = 'h:' .. id
            headers[#headers + 1] = written[id].headers
        end
    end
    if #headers > 0 then
        variadic('hset', KEYS[4], headers)
    end
end
if earliest ~= nil and (headDue == nil or earliest < headDue) then
    redis.call('publish', ARGV[1], string.format('%d', math.max(0, earliest * 1000 - micros)))
end
return out
