-- Helpers of the scripts that see or take away a task claimed ahead of its due time (task-cancel.lua,
-- task-reschedule.lua, task-schedule.lua, task-due.lua), put in front of them when they are loaded,
-- after task-claim-state.lua; it touches no key by itself.

-- Whether the delivery of a task is one claimed ahead of its due time that has not started: the
-- meta hash keeps such a task's due time (d:<id>) until its consumer, at that time, confirms the
-- start with task-start.lua, which removes it; a task whose start is confirmed runs whatever comes.
local function waitingToStart(dueField, now)
    return dueField ~= false and dueField ~= nil
end

-- The claim token, due time and deliveries of a task claimed ahead that has not started, read from
-- the meta hash in either format (task-claim-state.lua's currentClaim); nil for any other task.
local function waitingClaim(meta, id, now)
    local due = redis.call('hget', meta, 'd:' .. id)
    if not waitingToStart(due, now) then
        return nil
    end
    local token, deliveries = currentClaim(meta, id)
    if token then
        return token, tonumber(due), deliveries
    end
    return nil
end

-- Tells the consumers that the delivery of a task claimed ahead, under token, no longer stands: its
-- consumer drops it if it has not started it. The message is 'revoke <token length> <token><id>'.
local function revoke(channel, token, id)
    redis.call('publish', channel, 'revoke ' .. #token .. ' ' .. token .. id)
end
