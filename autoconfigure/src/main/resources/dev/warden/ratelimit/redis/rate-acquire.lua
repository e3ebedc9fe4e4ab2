-- One decision of a rate limiter, by the generic cell rate algorithm: the limiter keeps the time at
-- which it is full again (tat); each permit moves it one interval later; a request is granted when,
-- with its permits, that time is at most burst intervals ahead of now. A request that accepts a wait
-- is granted when its permits come within it, and reserves them at once.
--
-- KEYS[1]  the limiter's state, a string '<tat µs> <interval µs>' (stored format 1; a later format may
--          append tokens, ignored here and dropped by this version's next write); expires once the limiter is full,
--          at the rate it was last used (a call at another rate stores the permits in use re-expressed,
--          granted or not, so that they live as long as that rate holds them)
-- ARGV[1]  permits asked (1 to burst)
-- ARGV[2]  the interval between two permits, µs (the period over the rate; may be fractional)
-- ARGV[3]  burst: how many permits a full limiter grants at once
-- ARGV[4]  the longest wait accepted, µs; -1 to look only and take nothing
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  {granted (1 or 0), wait µs (granted: until the permits may be used; refused: until they
--          would be available), permits available after the decision}
local now = redisClock()
local permits = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local maxWait = tonumber(ARGV[4])

local tat = now
local rateChanged = false
local state = redis.call('get', KEYS[1])
if state then
    -- Stored format 1 is the first two tokens; a later format may append more, which this one ignores.
    local first, second = string.match(state, '^(%S+) (%S+)')
    local storedTat = tonumber(first) or now
    local storedInterval = tonumber(second) or interval
    if storedTat > now then
        -- The permits in use, at the interval this call asks for (the rate may have changed).
        tat = now + (storedTat - now) * interval / storedInterval
        rateChanged = storedInterval ~= interval
    end
end

local function store(fullAt)
    redis.call('set', KEYS[1], string.format('%.17g %.17g', fullAt, interval), 'PX',
        math.max(1, math.ceil((fullAt - now) / 1000)))
end

local function availableAt(fullAt)
    return math.max(0, math.min(burst, math.floor((burst * interval - (fullAt - now)) / interval)))
end

local newTat = tat + permits * interval
local wait = math.max(0, newTat - burst * interval - now)
if maxWait < 0 or wait > maxWait then
    if rateChanged then
        -- Nothing taken, but the permits in use now count at this rate: the key must live until
        -- they are back at it, or a slower rate would find them forgotten early.
        store(tat)
    end
    return {0, math.ceil(wait), availableAt(tat)}
end
store(newTat)
return {1, math.ceil(wait), availableAt(newTat)}
