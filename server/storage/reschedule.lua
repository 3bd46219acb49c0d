-- A tick's next timer for a race (server/handlers/clock.py, handlers/presence.py). It never
-- moves a timer that lies in the future to a later time, nor removes it: that timer was set
-- after the tick read the race (the end check of a move that may win, handlers/play.py; a
-- countdown started meanwhile), and raising it to the deadline would leave a race whose last
-- game ended running until then if the process that set it died. A timer too early costs
-- one more tick; one too late, the end.
-- KEYS: 1 the timers (zset race id -> ms)
-- ARGV: 1 race id   2 the tick's now (ms)   3 the next timer (ms), or "" for none
-- Returns the timer now stored (nil: none).
local cur = redis.call('ZSCORE', KEYS[1], ARGV[1])
local future = cur and tonumber(cur) > tonumber(ARGV[2])
if ARGV[3] == '' then
  if future then
    return tonumber(cur)
  end
  redis.call('ZREM', KEYS[1], ARGV[1])
  return nil
end
local at = tonumber(ARGV[3])
if future and tonumber(cur) < at then
  return tonumber(cur)
end
redis.call('ZADD', KEYS[1], at, ARGV[1])
return at
