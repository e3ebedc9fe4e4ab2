-- Helpers for the scripts that work on many tasks in one call (task-claim.lua, task-schedule.lua),
-- and for those that drop one task's state (task-cancel.lua, task-fail.lua).
-- Redis 6.2 has no script libraries, so this file is put in front of each of them when they are
-- loaded (LuaScript's preludes) and runs as part of them; it touches no key by itself.

-- Runs a variadic command on key with the items as its further arguments, in slices of 1000 that
-- Lua's unpack can pass (it is bounded by the C stack); the even size keeps pairs together.
local function variadic(command, key, items)
    for first = 1, #items, 1000 do
        redis.call(command, key, unpack(items, first, math.min(#items, first + 999)))
    end
end

-- HMGET of any number of fields, in the same slices.
local function hmget(key, fields)
    local values = {}
    for first = 1, #fields, 1000 do
        local slice = redis.call('hmget', key, unpack(fields, first, math.min(#fields, first + 999)))
        for i = 1, #slice do
            values[first + i - 1] = slice[i]
        end
    end
    return values
end

-- The fields of tasks in the meta hash: all the state a task has there: l:<id> when an instance that
-- could not read the task first left it, n:<id> the stored format a reader needs (absent: 1), x:<id>
-- the claim of a delivery under way in stored format 2 (task-claim-state.lua). Format 1 already
-- deleted x:<id> with the task, so that a version that reads only format 1 drops all of it.
local function metaFields(ids)
    local fields = {}
    for _, id in ipairs(ids) do
        fields[#fields + 1] = 'a:' .. id
        fields[#fields + 1] = 'c:' .. id
        fields[#fields + 1] = 'e:' .. id
        fields[#fields + 1] = 'd:' .. id
        fields[#fields + 1] = 'h:' .. id
        fields[#fields + 1] = 'k:' .. id
        fields[#fields + 1] = 'l:' .. id
        fields[#fields + 1] = 'n:' .. id
        fields[#fields + 1] = 'x:' .. id
    end
    return fields
end

-- A dead letter's record, as JSON: the task's id, payload, attempts, error and failure time, with
-- the stored format it needs (needs) when it has a mark, which a re-drive puts back
-- (task-requeue-dead.lua, task-dead-requeue.lua). The claim a task had (x:<id> in format 2) is not
-- kept: a re-driven task starts without one.
local function deadLetterRecord(metaKey, id, payload, attempts, error, failedAt)
    local needs = redis.call('hget', metaKey, 'n:' .. id)
    return cjson.encode({id = id, payload = payload, attempts = attempts, error = error, failedAt = failedAt,
        needs = needs or nil})
end
