-- Extends the visibility deadlines of deliveries whose handlers are still running, so that a handler
-- that runs longer than the visibility timeout is not delivered a second time meanwhile. A
-- consumer sends it every third of the timeout while it has handlers running; when its process
-- dies, the extensions stop and the deadlines lapse as before.
--
-- KEYS[1]  in-flight zset (task id -> visibility deadline, epoch ms)
-- KEYS[2]  meta hash (the claim of the delivery under way: c:<id> or x:<id>, task-claim-state.lua)
-- ARGV[1]  visibility timeout in ms: each deadline becomes now plus this
-- ARGV[2]… pairs: task id, the delivery's claim token (one pair per delivery: two deliveries of one
--          id, the older one replaced or redelivered while its handler ran, are two pairs)
-- Reads Redis's clock with redisClock (redis-clock.lua, a prelude).
--
-- Returns  the positions (from 1) of the pairs whose claim no longer matches (redelivered after
--          their deadline lapsed, replaced, purged): those are left alone, and their handlers have
--          lost them.
local _, now = redisClock()
local deadline = now + tonumber(ARGV[1])
local lost = {}
for i = 2, #ARGV - 1, 2 do
    local id = ARGV[i]
    if standingClaim(KEYS[2], id, ARGV[i + 1]) ~= nil then
        redis.call('zadd', KEYS[1], 'XX', deadline, id)
    else
        lost[#lost + 1] = i / 2
    end
end
return lost
