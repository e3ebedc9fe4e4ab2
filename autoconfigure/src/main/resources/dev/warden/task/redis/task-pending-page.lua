-- One page of the pending tasks in due order, with what an operator needs to see of each: due time,
-- deliveries so far and the last error of a task being retried, and the stored payload.
--
-- KEYS[1]  due zset
-- KEYS[2]  tasks hash
-- KEYS[3]  meta hash (a:<id> deliveries so far, e:<id> the last error)
-- ARGV[1]  offset
-- ARGV[2]  how many at most
--
-- Returns  {id1, due1, attempts1, error1, payload1, id2, ...}; an error is '' when there is none
local first = tonumber(ARGV[1])
local entries = redis.call('zrange', KEYS[1], first, first + tonumber(ARGV[2]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #entries, 2 do
    local id = entries[i]
    local meta = redis.call('hmget', KEYS[3], 'a:' .. id, 'e:' .. id)
    out[#out + 1] = id
    -- A task deferred by its queue's limits is scored 1e15 past its due time (task-limits.lua).
    local due = math.floor(tonumber(entries[i + 1]))
    out[#out + 1] = (due >= 1e15) and (due - 1e15) or due
    out[#out + 1] = tonumber(meta[1]) or 0
    out[#out + 1] = meta[2] or ''
    out[#out + 1] = redis.call('hget', KEYS[2], id) or ''
end
return out
