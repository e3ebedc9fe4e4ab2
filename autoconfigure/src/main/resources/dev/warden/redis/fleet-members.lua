-- The live members of the fleet registry (see fleet-announce.lua), read only.
--
-- KEYS[1]  the instances hash
-- KEYS[2]  the expiry zset
-- Reads Redis's clock with fleetNow and the live members with liveMembers (fleet-live.lua, a prelude).
--
-- Returns  {now ms, 0, then per live member: client id, expiry ms, announcement}
local now = fleetNow()
return liveMembers(KEYS[1], KEYS[2], now, { now, 0 })
