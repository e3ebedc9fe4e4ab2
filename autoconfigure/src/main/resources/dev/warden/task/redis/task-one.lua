-- One task as an operator sees it, by id: the pending task or the dead letter of that id, with its
-- payload whole up to a limit and its size (addPendingTask and addDeadLetter, task-excerpt.lua, a
-- prelude). A claimed task is not pending.
--
-- KEYS[1]  due zset
-- KEYS[2]  tasks hash
-- KEYS[3]  meta hash (a:<id> deliveries so far, e:<id> the last error)
-- KEYS[4]  dead letters hash (task id -> JSON {id, payload, attempts, error, failedAt})
-- ARGV[1]  the task id
-- ARGV[2]  how many bytes of the payload at most
-- ARGV[3]  'pending' or 'dead'
--
-- Returns  {} when there is no such task, else its fields as task-pending-page.lua or
--          task-dead-page.lua return them
local id = ARGV[1]
local limit = tonumber(ARGV[2])
local out = {}
if ARGV[3] == 'pending' then
    local score = redis.call('zscore', KEYS[1], id)
    if score then
        addPendingTask(out, KEYS[2], KEYS[3], id, score, limit)
    end
else
    local record = redis.call('hget', KEYS[4], id)
    if record then
        addDeadLetter(out, record, limit)
    end
end
return out
