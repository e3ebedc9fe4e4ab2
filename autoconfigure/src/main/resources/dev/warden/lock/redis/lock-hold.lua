-- Helper of the release scripts of the locks that can be handed over (lock-release.lua,
-- fair-release.lua). Redis 6.2 has no script libraries, so this file is put in front of each of them
-- when they are loaded (LuaScript's preludes) and runs as part of them; it touches no key by itself.

-- Releases one of an owner's holds of a lock hash: -1 when the owner holds none, 0 when it still
-- holds the lock (its lease is left as it is), nil when that was its last hold and the lock hash is
-- deleted.
local function releaseOneHold(lock, owner)
    local holds = redis.call('hget', lock, owner)
    if holds == false then
        return -1
    end
    if tonumber(holds) > 1 then
        redis.call('hincrby', lock, owner, -1)
        return 0
    end
    redis.call('del', lock)
    return nil
end
