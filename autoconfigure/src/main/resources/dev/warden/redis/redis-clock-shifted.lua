-- Redis's clock moved forward by a test: the stand-in for redis-clock.lua in the scripts of a client
-- built with Warden.Builder#testClock. The offset, in milliseconds, is the integer at the key
-- warden:test:clock-offset (none: 0), which a test raises to make tasks due without waiting; a client
-- in another namespace than 'warden' runs this script with its own <namespace>:test:clock-offset in
-- that literal's place (LuaScript#shifted). The key is not among the script's KEYS, so this works on
-- a standalone Redis only, as the builder checks.

-- The time now, read with TIME and moved by the offset: microseconds and milliseconds (rounded
-- down) since the epoch, and the moved time as TIME answers it (seconds, microseconds), for a value
-- that must be unique per call.
local function redisClock()
    local time = redis.call('TIME')
    local offset = tonumber(redis.call('GET', 'warden:test:clock-offset') or '0')
    local micros = tonumber(time[1]) * 1000000 + tonumber(time[2]) + offset * 1000
    local seconds = math.floor(micros / 1000000)
    return micros, math.floor(micros / 1000), { string.format('%d', seconds),
        string.format('%d', micros - seconds * 1000000) }
end
