-- The spectator boards' read: every player's move count and position, and the
-- server time after reading them, in one atomic call (no move lands in
-- between, so the boards show exactly the race at that time). The player keys
-- share the race's hash tag: one cluster slot.
-- KEYS: the player hashes   Returns {now_ms, n1, pos1, n2, pos2, ...}
local out = {0}
for i, key in ipairs(KEYS) do
  local p = redis.call('HMGET', key, 'n', 'pos')
  out[2 * i] = p[1] or 0
  out[2 * i + 1] = p[2] or false
end
local t = redis.call('TIME')
out[1] = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return out
