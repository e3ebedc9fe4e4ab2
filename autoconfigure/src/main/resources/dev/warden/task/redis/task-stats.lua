-- Counts a queue's tasks in one consistent read, for metrics and the operator's views.
--
-- KEYS[1]  due zset
-- KEYS[2]  in-flight zset
-- KEYS[3]  dead letters hash
--
-- Returns  {pending, in flight, dead letters, due time of the first pending task in ms (-1: none)}
local first = redis.call('zrange', KEYS[1], 0, 0, 'WITHSCORES')
return {redis.call('zcard', KEYS[1]), redis.call('zcard', KEYS[2]), redis.call('hlen', KEYS[3]),
    first[2] and math.floor(tonumber(first[2])) or -1}
