-- Helper of the acquire scripts that hand out fencing tokens with more than one way to acquire
-- (fair-acquire.lua, write-acquire.lua). Redis 6.2 has no script libraries, so this file is put in
-- front of each of them when they are loaded (LuaScript's preludes) and runs as part of them; it
-- touches no key by itself.

-- The reply of an acquisition: the next value of the lock's fencing counter when the caller asked
-- for a token (wanted = '1'), else 0, and the counter is then neither read nor created.
local function acquiredWithToken(counter, wanted)
    if wanted == '1' then
        return redis.call('incr', counter)
    end
    return 0
end
