-- Moves the test clock forward: adds to the offset that the shifted clock prelude adds to Redis's
-- TIME. A script rather than a plain INCRBY: one whose connection closes before its reply fails,
-- rather than being sent again and moving the clock twice.
--
-- KEYS[1]  the clock offset, in ms
-- ARGV[1]  how far to move it, in ms (>= 0)
--
-- Returns  the offset now, in ms.
return redis.call('incrby', KEYS[1], ARGV[1])
