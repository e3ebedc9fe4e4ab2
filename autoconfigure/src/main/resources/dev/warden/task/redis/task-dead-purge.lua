-- Deletes dead letters: one by id, or up to a limit of those that failed before a time.
--
-- KEYS[1]  dead letters hash
-- KEYS[2]  dead letters by failure time: zset
-- ARGV[1]  a task id, or '' to delete by failure time
-- ARGV[2]  with no id: delete those that failed before this time (epoch ms, exclusive)
-- ARGV[3]  with no id: how many at most
-- Trims with trimDeadLetters (task-dead.lua, a prelude).
--
-- Returns  how many were deleted.
if ARGV[1] ~= '' then
    redis.call('zrem', KEYS[2], ARGV[1])
    return redis.call('hdel', KEYS[1], ARGV[1])
end
return trimDeadLetters(KEYS[1], KEYS[2], tonumber(ARGV[2]), tonumber(ARGV[3]))
