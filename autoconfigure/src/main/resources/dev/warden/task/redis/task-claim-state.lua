-- Helpers that read and end the claim of a delivery under way, in either stored format of tasks.
-- Put in front of the scripts that work on claims when they are loaded; it touches no key by itself.
--
-- Format 1 keeps a claim in two meta fields: a:<id>, the deliveries so far, and c:<id>, the claim
-- token. Format 2 keeps it in one, x:<id> = '<deliveries> <token>' (x:<id> holds a later version's
-- state of a task, which format 1 deletes with the task), and its tokens' flags include the letter x.
-- A task that is not in flight keeps its deliveries in a:<id> in both formats, so that a version that
-- reads only format 1 counts them right when it claims it; a task claimed in format 2 after a
-- failure may keep that stale a:<id> until it ends (its token's e flag says so), and every reader of
-- a format-2 claim reads x:.

-- Whether token is that of a format-2 claim: its flags end in x (a format-1 token ends in a digit of
-- its µs or in one of the letters e, h, n, k).
local function compactClaim(token)
    return string.byte(token, -1) == 120
end

-- The token and deliveries kept in a format-2 claim field ('<deliveries> <token>'); nil for none.
local function splitClaim(field)
    if not field then
        return nil
    end
    local space = string.find(field, ' ', 1, true)
    return string.sub(field, space + 1), tonumber(string.sub(field, 1, space - 1))
end

-- Whether the claim field read for token (x:<id> for a format-2 token, c:<id> for a format-1 one)
-- shows that its claim still stands: in format 2, the field ends in the token (a token is unique to
-- its claim), and no c:<id> stands beside it (otherClaim: the value of c:<id>), since a version that
-- reads only format 1 claims a lapsed delivery again in a:<id> and c:<id>, leaving x:<id> as it was.
local function claimStands(field, token, compact, otherClaim)
    if not field then
        return false
    end
    if compact then
        return not otherClaim and #field > #token and string.sub(field, -#token) == token
    end
    return field == token
end

-- The deliveries of task id counted by the claim made under token, when that claim still stands;
-- nil when it does not. Reads the fields of the token's format (and c:<id> for format 2).
local function standingClaim(meta, id, token)
    if compactClaim(token) then
        local fields = redis.call('hmget', meta, 'x:' .. id, 'c:' .. id)
        if claimStands(fields[1], token, true, fields[2]) then
            return (select(2, splitClaim(fields[1])))
        end
        return nil
    end
    local fields = redis.call('hmget', meta, 'c:' .. id, 'a:' .. id)
    if fields[1] == token then
        return tonumber(fields[2]) or 0
    end
    return nil
end

-- The token of task id's claim in either format, with its deliveries; nil when it is not claimed. A
-- format-1 claim comes first: a version that reads only format 1, claiming again a task whose
-- format-2 delivery timed out, leaves x:<id> behind its own claim until the task ends.
local function currentClaim(meta, id)
    local fields = redis.call('hmget', meta, 'c:' .. id, 'a:' .. id, 'x:' .. id)
    if fields[1] then
        return fields[1], tonumber(fields[2]) or 0
    end
    return splitClaim(fields[3])
end

-- Ends the claim of task id, the task going back in the queue with deliveries counted, kept in
-- a:<id>: one less than its claim counted when the delivery never started (handed back, revoked,
-- deferred by task limits), as many when it ended (a failure with a retry). The claim ahead's due
-- time (d:<id>) goes with it; a task-limit slot's key (k:<id>) is its caller's.
local function releaseClaim(meta, id, deliveries)
    redis.call('hdel', meta, 'c:' .. id, 'x:' .. id, 'd:' .. id)
    if deliveries > 0 then
        redis.call('hset', meta, 'a:' .. id, deliveries)
    else
        redis.call('hdel', meta, 'a:' .. id)
    end
end
