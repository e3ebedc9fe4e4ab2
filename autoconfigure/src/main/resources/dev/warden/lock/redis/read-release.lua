-- Releases one read hold. The lock's lease becomes the longest lease of the read holds left; the
-- last hold frees the lock and wakes one waiter.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  this owner's read-hold timeout prefix, {name}:<owner id>:rwlock_timeout
-- KEYS[3]  every owner's timeout prefix, {name}
-- ARGV[1]  owner id
-- ARGV[2]  the lock's channel, redisson_rwlock:{name}
--
-- Returns  nil when the owner holds no read hold; 0 when the owner still holds read holds; 1 when
--          this was its last one. When it was the lock's last hold of all, the key is deleted and
--          message 0 published.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[1], -1)
local ownerDone = 0
if left == 0 then
    redis.call('hdel', KEYS[1], ARGV[1])
    ownerDone = 1
end
redis.call('del', KEYS[2] .. ':' .. (left + 1))
if redis.call('hlen', KEYS[1]) > 1 then
    local longest = -3
    for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
        local holds = tonumber(redis.call('hget', KEYS[1], field))
        if type(holds) == 'number' then
            for hold = holds, 1, -1 do
                longest = math.max(longest, redis.call('pttl', KEYS[3] .. ':' .. field .. ':rwlock_timeout:' .. hold))
            end
        end
    end
    if longest > 0 then
        redis.call('pexpire', KEYS[1], longest)
        return ownerDone
    end
    if redis.call('hget', KEYS[1], 'mode') == 'write' then
        return ownerDone
    end
end
redis.call('del', KEYS[1])
redis.call('publish', ARGV[2], '0')
return ownerDone
