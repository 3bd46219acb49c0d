-- The spectator boards' read: every player's status and the moves of their log after the
-- ones the caller has already replayed, and the server time after reading them, in one
-- atomic call (no move lands in between, so the boards show exactly the race at that time).
-- The player keys share the race's hash tag: one cluster slot.
-- KEYS: the P player hashes, then their P move logs in the same order
-- ARGV: for each player, how many of their log's entries the caller has (0: none yet), then
--       the most entries to return per player (a long log is read over several calls)
-- Returns {now_ms, n1, entries1, status1, n2, ...} (n: the moves made; status: playing, won, ...)
local out = {0}
local np = #KEYS / 2
local most = tonumber(ARGV[np + 1])
for i = 1, np do
  local p = redis.call('HMGET', KEYS[i], 'n', 'status')
  out[#out + 1] = p[1] or 0
  local from = tonumber(ARGV[i])
  out[#out + 1] = redis.call('LRANGE', KEYS[np + i], from, from + most - 1)
  out[#out + 1] = p[2] or 'playing'
end
local t = redis.call('TIME')
out[1] = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return out
