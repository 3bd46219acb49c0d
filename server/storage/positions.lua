-- The spectator boards' read: every player's move count and position, and the
-- server time after reading them, in one atomic call (no move lands in
-- between, so the boards show exactly the race at that time). The player keys
-- share the race's hash tag: one cluster slot.
-- A position is stored as a snapshot (pos at count pn) and the move log after
-- it (positions.py): each player's snapshot comes with the log entries after it.
-- KEYS: the P player hashes, then their P move logs in the same order
-- Returns {now_ms, n1, pos1, pn1, entries1, status1, n2, ...} (status: playing, won, ...)
-- (pn false: a game stored before snapshots, its pos is at n; entries then empty)
local out = {0}
local np = #KEYS / 2
for i = 1, np do
  local p = redis.call('HMGET', KEYS[i], 'n', 'pos', 'pn', 'status')
  local since = {}
  if p[2] and p[3] then since = redis.call('LRANGE', KEYS[np + i], p[3], -1) end
  out[#out + 1] = p[1] or 0
  out[#out + 1] = p[2] or false
  out[#out + 1] = p[3] or false
  out[#out + 1] = since
  out[#out + 1] = p[4] or 'playing'
end
local t = redis.call('TIME')
out[1] = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return out
