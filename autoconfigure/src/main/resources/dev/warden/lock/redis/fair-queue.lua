-- Helper of the fair lock's scripts that look at its queue of waiters (fair-acquire.lua,
-- fair-release.lua, fair-force-release.lua). Redis 6.2 has no script libraries, so this file is put
-- in front of each of them when they are loaded (LuaScript's preludes) and runs as part of them; it
-- touches no key by itself.

-- Waiters at the head of the queue whose deadline passed (crashed, or gave up) lose their place.
local function dropExpiredWaiters(queue, deadlines, now)
    while true do
        local first = redis.call('lindex', queue, 0)
        if first == false then
            return
        end
        local deadline = redis.call('zscore', deadlines, first)
        if deadline == false or tonumber(deadline) > now then
            return
        end
        redis.call('zrem', deadlines, first)
        redis.call('lpop', queue)
    end
end
