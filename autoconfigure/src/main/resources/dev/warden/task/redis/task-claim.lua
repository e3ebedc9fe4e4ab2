-- Claims due tasks for one consumer: each moves to the in-flight set with a visibility deadline.
-- Tasks whose deadline passed (their consumer died) are claimed again first. A task due within the
-- claim-ahead window is claimed with the others, so a busy queue takes one claim per window rather
-- than one per due millisecond: its consumer starts it when it is due, counted by Redis's clock, and
-- until then the meta hash keeps its due time (d:<id>), which is how the other scripts tell it from
-- a task already running. Before claiming, it completes the consumer's finished deliveries passed
-- along: a busy consumer acknowledges with its claims, an idle one with a claim of nothing
-- (ARGV[1] = 0). Whatever the batch size, it runs a fixed number of Redis commands: each step is one
-- variadic command for the whole batch. Runs after task-batch.lua, which defines variadic, hmget
-- and metaFields, and task-claim-state.lua, which reads claims of either stored format.
--
-- KEYS[1]  due zset
-- KEYS[2]  tasks hash
-- KEYS[3]  in-flight zset
-- KEYS[4]  meta hash (a:<id> attempts and c:<id> claim token, or both in x:<id> (format 2,
--          task-claim-state.lua), e:<id> last error, d:<id> due time of a task claimed before it was
--          due, h:<id> the trace context of the code that scheduled it, n:<id> the stored format its
--          reader needs; see metaFields)
-- KEYS[5]  dead letters: hash, task id -> JSON {id, payload, attempts, error, failedAt}
-- KEYS[6]  dead letters by failure time: zset, task id -> failedAt (ms)
-- ARGV[1]  how many tasks to claim at most
-- ARGV[2]  visibility timeout in ms, counted from the task's due time when it is claimed ahead
-- ARGV[3]  consumer id (claim tokens are <consumer id>:<seconds>:<µs> of this call's TIME: unique per
--          claim, so a delivery that was cancelled or replaced while it ran never matches the
--          delivery of the task that took its id, even in the same consumer at the same attempt; a
--          task's token ends in :<flags> when it may have meta fields besides a:, c: and x:, one
--          letter each, which its completion deletes with those three: e (e: and l:), h, n, k; and x
--          for a claim kept in format 2)
-- ARGV[4]  max deliveries: a task claimed more often goes to the dead letters instead
-- ARGV[5]  claim-ahead window in ms (0: only tasks already due)
-- ARGV[6]  the stored format of tasks to keep the claims in: 1 (a:<id> and c:<id>) or 2 (x:<id>)
-- ARGV[7]  how many finished deliveries follow, n
-- ARGV[8]… n pairs: task id, the delivery's claim token
-- With task limits (task-limits.lua, a prelude), three more keys and three more arguments:
-- KEYS[7]  slots zset
-- KEYS[8]  parked zset
-- KEYS[9]  wakes zset
-- ARGV[8 + 2n]  how many deferred tasks of a key to make due again when its wake-up time comes
-- ARGV[9 + 2n]  the queue's wake-up channel, told when deferred tasks became due that this call
--          could not take
-- ARGV[10 + 2n]  ms after a wake-up at which a key with deferred tasks left wakes again, should the
--          tasks made due not reach their admission (cancelled, rescheduled or replaced first)
-- A completed task frees its key's slot, and a key whose wake-up time came has deferred tasks due
-- again, before the claim; the key keeps a wake-up while it has deferred tasks (task-limits.lua).
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  {now, wake, n, outcome1, ..., outcomeN, id1, payload1, attempt1, token1, start1, context1,
--          needs1, id2, ...}:
--          now is Redis's clock (epoch µs); wake is how many µs until the next unclaimed task is due
--          or the next deadline passes (-1: nothing pending); each outcome is 1 when that delivery
--          was completed, 0 when its claim no longer matched (cancelled, replaced, redelivered;
--          nothing changed); start is how many µs until the task is due, negative when it is late
--          (for a delivery that timed out, counted from its deadline); context is the trace context
--          stored with the task, '' for none; needs is the stored format the task needs its reader to
--          read (n:<id>, 1 when absent): a reader of a lower format leaves it (task-leave.lua).
local micros, now, time = redisClock()
local limit = tonumber(ARGV[1])
local visibility = tonumber(ARGV[2])
local maxDeliveries = tonumber(ARGV[4])
local ahead = tonumber(ARGV[5])
local compact = ARGV[6] == '2'
local finished = tonumber(ARGV[7])
local out = {micros, -1, finished}
local token = ARGV[3] .. ':' .. time[1] .. ':' .. time[2]
local limited = #KEYS > 6
-- How many deferred tasks became due in this call.
local promoted = 0

if finished > 0 then
    -- Per delivery, the field of its token's format and, for format 2, c:<id> (claimStands).
    local tokenFields = {}
    for i = 1, finished do
        local id = ARGV[6 + 2 * i]
        if compactClaim(ARGV[7 + 2 * i]) then
            tokenFields[#tokenFields + 1] = 'x:' .. id
        end
        tokenFields[#tokenFields + 1] = 'c:' .. id
    end
    local claims = hmget(KEYS[4], tokenFields)
    -- Where the next delivery's fields start in claims.
    local at = 1
    local completed = {}
    -- The meta fields the completed tasks have: those every claim of its format writes, and those its
    -- token's flags name (claimFrom below). A format-2 claim has no c:<id>, and an a:<id> only when
    -- its e flag says so.
    local ended = {}
    for i = 1, finished do
        local token = ARGV[7 + 2 * i]
        local compactToken = compactClaim(token)
        local stands
        if compactToken then
            stands = claimStands(claims[at], token, true, claims[at + 1])
            at = at + 2
        else
            stands = claimStands(claims[at], token, false)
            at = at + 1
        end
        if stands then
            local id = ARGV[6 + 2 * i]
            completed[#completed + 1] = id
            out[#out + 1] = 1
            ended[#ended + 1] = 'x:' .. id
            if not compactToken then
                ended[#ended + 1] = 'a:' .. id
                ended[#ended + 1] = 'c:' .. id
            end
            local flags = string.match(token, ':(%a+)$')
            if flags then
                for flag in string.gmatch(flags, '[ehnk]') do
                    ended[#ended + 1] = flag .. ':' .. id
                    if flag == 'e' then
                        ended[#ended + 1] = 'l:' .. id
                        if compactToken then
                            ended[#ended + 1] = 'a:' .. id
                        end
                    end
                end
            end
        else
            out[#out + 1] = 0
        end
    end
    if #completed > 0 then
        if limited then
            local keyFields = {}
            for i, id in ipairs(completed) do
                keyFields[i] = 'k:' .. id
            end
            promoted = releaseSlots(KEYS[7], KEYS[1], KEYS[8], KEYS[9], completed, hmget(KEYS[4], keyFields), now)
        end
        variadic('zrem', KEYS[3], completed)
        variadic('hdel', KEYS[2], completed)
        variadic('hdel', KEYS[4], ended)
    end
end

local claimed = 0
-- The earliest deadline of this call's claims.
local firstDeadline = nil

-- Claims from source (the due or the in-flight zset) the tasks scored up to upTo; a task's due time
-- is its score in the due zset, and now for a delivery that timed out.
local function claimFrom(source, upTo)
    local found = redis.call('zrangebyscore', source, '-inf', upTo, 'WITHSCORES', 'LIMIT', 0, limit - claimed)
    if #found == 0 then
        return
    end
    local ids = {}
    local dues = {}
    local scores = {}
    for i = 1, #found, 2 do
        ids[#ids + 1] = found[i]
        scores[#scores + 1] = tonumber(found[i + 1])
        dues[#dues + 1] = (source == KEYS[1]) and math.max(now, scores[#scores]) or now
    end
    redis.call('zrem', source, unpack(ids))
    local payloads = redis.call('hmget', KEYS[2], unpack(ids))
    -- A delivery that timed out has a claim, in either format: its c:<id> and x:<id> are read too.
    local again = source == KEYS[3]
    local stride = again and 6 or 4
    local metaRead = {}
    for i, id in ipairs(ids) do
        local at = stride * (i - 1)
        metaRead[at + 1] = 'a:' .. id
        metaRead[at + 2] = 'h:' .. id
        metaRead[at + 3] = 'n:' .. id
        metaRead[at + 4] = 'l:' .. id
        if again then
            metaRead[at + 5] = 'c:' .. id
            metaRead[at + 6] = 'x:' .. id
        end
    end
    local read = hmget(KEYS[4], metaRead)
    local meta = {}
    local inflight = {}
    local dead = {}
    -- A delivery that timed out may have been claimed ahead before: its old due-time field goes.
    local stale = {}
    for i, id in ipairs(ids) do
        local payload = payloads[i]
        local at = stride * (i - 1)
        if payload then
            local prior = tonumber(read[at + 1]) or 0
            if again and not read[at + 5] and read[at + 6] then
                -- Its delivery was claimed in format 2: x:<id> counts it (a:<id> is older).
                local _, counted = splitClaim(read[at + 6])
                prior = math.max(prior, counted or 0)
            end
            local attempt = prior + 1
            if attempt > maxDeliveries then
                local error = redis.call('hget', KEYS[4], 'e:' .. id) or 'no acknowledgement'
                redis.call('hset', KEYS[5], id, deadLetterRecord(KEYS[4], id, payload, attempt - 1,
                    'gave up after ' .. (attempt - 1) .. ' deliveries; last: ' .. error, now))
                dead[#dead + 1] = id
            else
                -- The token's flags name the meta fields the task may have besides a:, c: and x:, so
                -- that its completion deletes those and no others: e (e: and l:, which only a task
                -- delivered or left before has), h (a trace context), n (a format mark), k (a
                -- task-limit key, which admission may add). A claim ahead's d: needs none: the start
                -- that its handler waits for deletes it (task-start.lua). x marks a claim kept in
                -- format 2.
                local flags = ''
                if read[at + 1] or read[at + 4] then
                    flags = 'e'
                end
                if read[at + 2] then
                    flags = flags .. 'h'
                end
                if read[at + 3] then
                    flags = flags .. 'n'
                end
                if limited then
                    flags = flags .. 'k'
                end
                -- A claim ahead of the due time is kept in format 1 even so: a version that reads only
                -- format 1 finds it (c:<id> with d:<id>) to revoke it when it cancels, reschedules or
                -- replaces the task, should it come back while the claim stands.
                local inX = compact and dues[i] <= now
                if inX then
                    flags = flags .. 'x'
                end
                local taskToken = (flags == '') and token or (token .. ':' .. flags)
                if inX then
                    -- One field for the claim; a:<id>, when the task has one, keeps the deliveries
                    -- before it until the task ends (its e flag deletes it with the rest).
                    meta[#meta + 1] = 'x:' .. id
                    meta[#meta + 1] = attempt .. ' ' .. taskToken
                    if again and read[at + 5] then
                        stale[#stale + 1] = 'c:' .. id
                    end
                else
                    meta[#meta + 1] = 'a:' .. id
                    meta[#meta + 1] = attempt
                    meta[#meta + 1] = 'c:' .. id
                    meta[#meta + 1] = taskToken
                    if again and read[at + 6] then
                        stale[#stale + 1] = 'x:' .. id
                    end
                end
                if dues[i] > now then
                    meta[#meta + 1] = 'd:' .. id
                    meta[#meta + 1] = dues[i]
                elseif source == KEYS[3] then
                    stale[#stale + 1] = 'd:' .. id
                end
                local taskDeadline = dues[i] + visibility
                if firstDeadline == nil or taskDeadline < firstDeadline then
                    firstDeadline = taskDeadline
                end
                inflight[#inflight + 1] = taskDeadline
                inflight[#inflight + 1] = id
                out[#out + 1] = id
                out[#out + 1] = payload
                out[#out + 1] = attempt
                out[#out + 1] = taskToken
                out[#out + 1] = scores[i] * 1000 - micros
                out[#out + 1] = read[at + 2] or ''
                out[#out + 1] = tonumber(read[at + 3]) or 1
                claimed = claimed + 1
            end
        end
    end
    if #dead > 0 then
        local index = {}
        for _, id in ipairs(dead) do
            index[#index + 1] = now
            index[#index + 1] = id
        end
        variadic('zadd', KEYS[6], index)
        variadic('hdel', KEYS[2], dead)
        variadic('hdel', KEYS[4], metaFields(dead))
    end
    if #meta > 0 then
        variadic('hset', KEYS[4], meta)
        variadic('zadd', KEYS[3], inflight)
    end
    if #stale > 0 then
        variadic('hdel', KEYS[4], stale)
    end
end

local function head(key)
    local first = redis.call('zrange', key, 0, 0, 'WITHSCORES')
    return first[2] and tonumber(first[2])
end

if limited then
    promoted = promoted + wakeKeys(KEYS[1], KEYS[8], KEYS[9], now, tonumber(ARGV[8 + 2 * finished]),
        tonumber(ARGV[10 + 2 * finished]))
    dropStaleSlots(KEYS[7], KEYS[3])
end

-- The earliest deadline in flight tells whether any delivery timed out, without a scan.
local inflightHead = head(KEYS[3])
if limit > 0 and inflightHead ~= nil and inflightHead <= now then
    claimFrom(KEYS[3], now)
    inflightHead = head(KEYS[3])
end
if claimed < limit then
    claimFrom(KEYS[1], now + ahead)
end
if firstDeadline ~= nil and (inflightHead == nil or firstDeadline < inflightHead) then
    inflightHead = firstDeadline
end
local next
if limited then
    -- Deferred tasks are not due: the next due time is the first below PARKED, or a key's wake-up.
    local first = redis.call('zrangebyscore', KEYS[1], '-inf', '(' .. PARKED, 'WITHSCORES', 'LIMIT', 0, 1)
    next = first[2] and tonumber(first[2])
    local wake = head(KEYS[9])
    if wake ~= nil and (next == nil or wake < next) then
        next = wake
    end
    if promoted > 0 and claimed == limit then
        redis.call('publish', ARGV[9 + 2 * finished], '0')
    end
else
    next = head(KEYS[1])
end
if inflightHead ~= nil and (next == nil or inflightHead < next) then
    next = inflightHead
end
if next ~= nil then
    out[2] = math.max(0, next * 1000 - micros)
end
return out
