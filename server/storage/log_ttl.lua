-- A player's first move created their move log (move.lua): it gets the race's TTL (set by
-- the start commit: the deadline plus a day), unless it has one already (an end commit's).
-- Sent with that move in the same write (moves.py), so that the move script, run on every
-- move, stays as lean as it is. KEYS: 1 race hash   2 the player's move log
-- Returns 1 if the log got a TTL, else 0.
if redis.call('PTTL', KEYS[2]) ~= -1 then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
