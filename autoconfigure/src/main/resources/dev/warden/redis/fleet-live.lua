-- The live members of a fleet registry, a prelude of fleet-announce.lua and fleet-members.lua.
-- Redis 6.2 has no script libraries, so this file is put in front of those scripts when they are
-- loaded (LuaScript's preludes) and runs as part of them.

-- Redis's clock in milliseconds. Deliberately TIME itself, never the test clock: whether an
-- instance lives is a matter of real time, even for a client whose task clock a test moves.
local function fleetNow()
    local time = redis.call('TIME')
    return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- Appends to reply, for each member whose expiry is now or later: its client id, its expiry (ms)
-- and its announcement. A member of the expiry zset missing from the hash is left out.
local function liveMembers(instances, expiry, now, reply)
    local live = redis.call('zrangebyscore', expiry, now, '+inf', 'WITHSCORES')
    for i = 1, #live, 2 do
        local text = redis.call('hget', instances, live[i])
        if text then
            reply[#reply + 1] = live[i]
            reply[#reply + 1] = tonumber(live[i + 1])
            reply[#reply + 1] = text
        end
    end
    return reply
end
