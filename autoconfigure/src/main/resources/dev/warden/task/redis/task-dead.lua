-- Helpers of the scripts that keep a queue's dead letters: the hash of their records and the zset
-- that orders them by failure time (task-fail.lua, task-dead-page.lua, task-dead-purge.lua,
-- task-dead-requeue.lua). Redis 6.2 has no script libraries, so this file is put in front of each of
-- them when they are loaded (LuaScript's preludes); it touches no key by itself.

-- Puts back in the meta hash what a dead letter's record kept of the task's meta fields: the stored
-- format its reader needs (needs, n:<id>), so that a re-drive leaves the task as its writer marked it
-- (task-batch.lua's deadLetterRecord). A record's ext, the x:<id> that versions reading only format 1
-- kept, is a claim of format 2 (task-claim-state.lua) that ended with the delivery: not put back.
local function restoreKept(meta, id, letter)
    if type(letter.needs) == 'string' or type(letter.needs) == 'number' then
        redis.call('hset', meta, 'n:' .. id, letter.needs)
    end
end

-- Removes up to limit dead letters that failed before the given time (epoch ms, exclusive): their
-- records and their index entries. Returns how many went.
local function trimDeadLetters(dead, deadAt, before, limit)
    local ids = redis.call('zrangebyscore', deadAt, '-inf', '(' .. before, 'LIMIT', 0, limit)
    if #ids > 0 then
        redis.call('hdel', dead, unpack(ids))
        redis.call('zrem', deadAt, unpack(ids))
    end
    return #ids
end

-- Indexes up to limit dead letters that the hash holds and the zset does not (kept before the
-- index existed), by the failure time in their records. Returns how many it indexed.
local function indexDeadLetters(dead, deadAt, limit)
    if redis.call('zcard', deadAt) >= redis.call('hlen', dead) then
        return 0
    end
    local indexed = 0
    local cursor = '0'
    repeat
        local page = redis.call('hscan', dead, cursor, 'COUNT', 100)
        cursor = page[1]
        for i = 1, #page[2], 2 do
            local id = page[2][i]
            if indexed < limit and not redis.call('zscore', deadAt, id) then
                redis.call('zadd', deadAt, cjson.decode(page[2][i + 1]).failedAt, id)
                indexed = indexed + 1
            end
        end
    until cursor == '0' or indexed >= limit
    return indexed
end
