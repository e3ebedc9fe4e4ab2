-- Helpers of the scripts that show tasks to an operator (task-pending-page.lua, task-dead-page.lua,
-- task-one.lua): a page carries the first bytes of each payload, cut here, so that whole payloads
-- never cross the wire a page at a time, and the payload's size. Redis 6.2 has no script libraries,
-- so this file is put in front of each of them when they are loaded (LuaScript's preludes); it
-- touches no key by itself.

-- The first bytes of a payload: at most limit of them, cut before a UTF-8 character that would not
-- fit whole; the whole payload when it is not longer, or when limit is 0 or less.
local function payloadExcerpt(payload, limit)
    if limit <= 0 or #payload <= limit then
        return payload
    end
    local cut = limit
    -- Back off over at most three continuation bytes (10xxxxxx), the tail of a cut character.
    while cut > 0 and cut > limit - 3 do
        local byte = string.byte(payload, cut + 1)
        if byte < 128 or byte >= 192 then
            break
        end
        cut = cut - 1
    end
    return string.sub(payload, 1, cut)
end

-- Appends a pending task's fields to out: id, due time (ms), deliveries so far, the last error ('' for
-- none), the payload cut to limit bytes ('' when the task has none), the payload's size in bytes.
local function addPendingTask(out, tasks, meta, id, score, limit)
    local fields = redis.call('hmget', meta, 'a:' .. id, 'e:' .. id)
    local payload = redis.call('hget', tasks, id) or ''
    -- A task deferred by its queue's limits is scored 1e15 past its due time (task-limits.lua).
    local due = math.floor(tonumber(score))
    out[#out + 1] = id
    out[#out + 1] = (due >= 1e15) and (due - 1e15) or due
    out[#out + 1] = tonumber(fields[1]) or 0
    out[#out + 1] = fields[2] or ''
    out[#out + 1] = payloadExcerpt(payload, limit)
    out[#out + 1] = #payload
end

-- Appends a dead letter's fields to out, from its record (JSON {id, payload, attempts, error,
-- failedAt}): id, failure time (ms), deliveries made, the error, the payload cut to limit bytes (''
-- when the letter has none), the payload's size in bytes (-1 when the letter has none).
local function addDeadLetter(out, record, limit)
    local letter = cjson.decode(record)
    local payload = letter.payload
    out[#out + 1] = tostring(letter.id)
    out[#out + 1] = tonumber(letter.failedAt) or 0
    out[#out + 1] = tonumber(letter.attempts) or 0
    out[#out + 1] = (type(letter.error) == 'string') and letter.error or ''
    if type(payload) == 'string' then
        out[#out + 1] = payloadExcerpt(payload, limit)
        out[#out + 1] = #payload
    else
        out[#out + 1] = ''
        out[#out + 1] = -1
    end
end
