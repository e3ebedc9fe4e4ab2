-- Completes delivered tasks: deletes each everywhere, if its delivery is still the current one.
-- A consumer acknowledges the tasks whose handlers finished while its previous acknowledgement was
-- under way in one call.
--
-- KEYS[1]  in-flight zset
-- KEYS[2]  tasks hash
-- KEYS[3]  meta hash (a:<id> attempts, c:<id> claim token, e:<id> last error)
-- ARGV     pairs: task id, the delivery's claim token (ARGV[1], ARGV[2], then ARGV[3], ARGV[4], ...)
--
-- Returns  one integer per pair, in order: 1 when completed; 0 when the claim no longer matches (the
--          task was cancelled, replaced, or redelivered after its deadline): nothing is changed.
local out = {}
for i = 1, #ARGV - 1, 2 do
    local id = ARGV[i]
    if redis.call('hget', KEYS[3], 'c:' .. id) ~= ARGV[i + 1] then
        out[#out + 1] = 0
    else
        redis.call('zrem', KEYS[1], id)
        redis.call('hdel', KEYS[2], id)
        redis.call('hdel', KEYS[3], 'a:' .. id, 'c:' .. id, 'e:' .. id)
        out[#out + 1] = 1
    end
end
return out
