-- Helper of the scripts that hand out fencing tokens: the acquire scripts of the reentrant, fair and
-- write locks, and the release scripts that hand a lock over (lock-release.lua, fair-release.lua).
-- Redis 6.2 has no script libraries, so this file is put in front of each of them when they are
-- loaded (LuaScript's preludes) and runs as part of them; it touches no key by itself.
--
-- A hold keeps its token in the lock hash, in the field <hold field>:fence, as 't<token>': not a
-- number, so the scripts that count holds field by field (the read-write lock's, Warden's and
-- Redisson's) pass over it; it goes with the hash, or with the hold's field when that is removed.

-- The reply of an acquisition by the hold in holdField: 0 when the caller asked for no token
-- (wanted ~= '1'), and the counter is then neither read nor created; else the hold's token: the
-- one it keeps when a re-entered hold took one before, otherwise the next value of the counter,
-- which it keeps from now on.
local function holdToken(lock, holdField, counter, wanted)
    if wanted ~= '1' then
        return 0
    end
    local field = holdField .. ':fence'
    local kept = redis.call('hget', lock, field)
    if kept then
        return tonumber(string.sub(kept, 2))
    end
    local token = redis.call('incr', counter)
    redis.call('hset', lock, field, 't' .. token)
    return token
end
