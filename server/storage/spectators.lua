-- A race's spectator count, changed by ARGV[1] only while the race's hash exists: a
-- spectator counted out of a race whose keys expired meanwhile must not make a hash
-- of that one field (no TTL, and read as a broken race by every later look-up).
-- KEYS: 1 race hash   ARGV: 1 delta   Returns the new count, or nil if no race
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return redis.call('HINCRBY', KEYS[1], 'spectators', ARGV[1])
