-- Confirms the start of a task that a consumer claimed ahead of its due time, now that it is due:
-- from here on the task runs, and cancel, reschedule and replace treat it as running. The start
-- fails when the claim no longer stands (the task was cancelled, rescheduled or replaced, or claimed
-- again), and the consumer then drops it.
--
-- KEYS[1]  meta hash (the claim, c:<id> or x:<id>; d:<id> due time of a task claimed ahead)
-- ARGV[1]  task id
-- ARGV[2]  the claim token it was claimed ahead under
-- Reads the claim with task-claim-state.lua's helpers (a prelude).
--
-- Returns  1 when the consumer may start it; 0 when it must drop it.
if standingClaim(KEYS[1], ARGV[1], ARGV[2]) == nil then
    return 0
end
redis.call('hdel', KEYS[1], 'd:' .. ARGV[1])
return 1
