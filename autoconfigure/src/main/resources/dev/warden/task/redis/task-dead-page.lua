-- One page of a queue's dead letters, the most recent failure first.
--
-- KEYS[1]  dead letters hash (task id -> JSON {id, payload, attempts, error, failedAt})
-- KEYS[2]  dead letters by failure time: zset, task id -> failedAt (ms)
-- ARGV[1]  how many to skip
-- ARGV[2]  how many at most
-- Indexes dead letters kept before the index existed first, 1,000 at most per call, with
-- indexDeadLetters (task-dead.lua, a prelude).
--
-- Returns  {total, record1, record2, ...}: how many dead letters the queue has, and the records of
--          the page.
indexDeadLetters(KEYS[1], KEYS[2], 1000)
local first = tonumber(ARGV[1])
local ids = redis.call('zrevrange', KEYS[2], first, first + tonumber(ARGV[2]) - 1)
local out = {redis.call('hlen', KEYS[1])}
if #ids > 0 then
    local records = redis.call('hmget', KEYS[1], unpack(ids))
    for i = 1, #ids do
        if records[i] then
            out[#out + 1] = records[i]
        end
    end
end
return out
