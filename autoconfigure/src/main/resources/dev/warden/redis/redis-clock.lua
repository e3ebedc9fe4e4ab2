-- Redis's clock, the one clock that decides what clients share: due times, deadlines, expiries.
-- Redis 6.2 has no script libraries, so this file is put in front of every script that reads the
-- clock when it is loaded (LuaScript's preludes) and runs as part of it; it touches no key.

-- The time now, read with TIME: microseconds and milliseconds (rounded down) since the epoch, and
-- TIME's own reply (seconds, microseconds), for a value that must be unique per call.
local function redisClock()
    local time = redis.call('TIME')
    local micros = tonumber(time[1]) * 1000000 + tonumber(time[2])
    return micros, math.floor(micros / 1000), time
end
