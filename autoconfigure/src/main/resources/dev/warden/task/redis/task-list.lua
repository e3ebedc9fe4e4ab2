-- Lists pending tasks in due order, with their payloads, in one consistent read.
--
-- KEYS[1]  due zset
-- KEYS[2]  tasks hash
-- ARGV[1]  offset
-- ARGV[2]  how many at most
--
-- Returns  {id1, due1, payload1, id2, ...}
local entries = redis.call('zrange', KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[1]) + tonumber(ARGV[2]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #entries, 2 do
    out[#out + 1] = entries[i]
    -- A task deferred by its queue's limits is scored 1e15 past its due time (task-limits.lua).
    local due = tonumber(entries[i + 1])
    out[#out + 1] = string.format('%d', (due >= 1e15) and (due - 1e15) or due)
    out[#out + 1] = redis.call('hget', KEYS[2], entries[i]) or ''
end
return out
