-- One page of a queue's dead letters, the most recent failure first, each with its payload whole or
-- cut to its first bytes, and its size (addDeadLetter, task-excerpt.lua, a prelude).
--
-- KEYS[1]  dead letters hash (task id -> JSON {id, payload, attempts, error, failedAt})
-- KEYS[2]  dead letters by failure time: zset, task id -> failedAt (ms)
-- ARGV[1]  how many to skip
-- ARGV[2]  how many at most
-- ARGV[3]  how many bytes of each payload at most; 0 for whole payloads
-- Indexes dead letters kept before the index existed first, 1,000 at most per call, with
-- indexDeadLetters (task-dead.lua, a prelude).
--
-- Returns  {total, id1, failedAt1, attempts1, error1, payload1, size1, id2, ...}: how many dead
--          letters the queue has, and the fields of the page's letters; a size is -1 for a letter
--          without a payload.
indexDeadLetters(KEYS[1], KEYS[2], 1000)
local first = tonumber(ARGV[1])
local limit = tonumber(ARGV[3])
local ids = redis.call('zrevrange', KEYS[2], first, first + tonumber(ARGV[2]) - 1)
local out = {redis.call('hlen', KEYS[1])}
if #ids > 0 then
    local records = redis.call('hmget', KEYS[1], unpack(ids))
    for i = 1, #ids do
        if records[i] then
            addDeadLetter(out, records[i], limit)
        end
    end
end
return out
