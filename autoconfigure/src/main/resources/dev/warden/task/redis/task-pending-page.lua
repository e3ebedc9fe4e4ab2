-- One page of the pending tasks in due order, with what an operator needs to see of each: due time,
-- deliveries so far and the last error of a task being retried, and the stored payload, whole or cut
-- to its first bytes with its size (addPendingTask, task-excerpt.lua, a prelude).
--
-- KEYS[1]  due zset
-- KEYS[2]  tasks hash
-- KEYS[3]  meta hash (a:<id> deliveries so far, e:<id> the last error)
-- ARGV[1]  offset
-- ARGV[2]  how many at most
-- ARGV[3]  how many bytes of each payload at most; 0 for whole payloads
--
-- Returns  {id1, due1, attempts1, error1, payload1, size1, id2, ...}; an error is '' when there is none
local first = tonumber(ARGV[1])
local limit = tonumber(ARGV[3])
local entries = redis.call('zrange', KEYS[1], first, first + tonumber(ARGV[2]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #entries, 2 do
    addPendingTask(out, KEYS[2], KEYS[3], entries[i], entries[i + 1], limit)
end
return out
