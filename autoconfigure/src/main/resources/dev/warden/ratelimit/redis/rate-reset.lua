-- Resets a rate limiter: deletes its state, so that it is full again. A script rather than a plain
-- DEL: one whose connection closes before its reply fails, rather than being sent again and finding
-- nothing left to delete.
--
-- KEYS[1]  the limiter's state
--
-- Returns  1 when the limiter had state (permits in use), 0 when it was full already.
return redis.call('del', KEYS[1])
