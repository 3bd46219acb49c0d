"""Lua shared by the leaderboards kept in sorted sets where a lower score ranks higher (the daily
challenge's board, an arena's standings): each board's scripts are built from these pieces, so
that ranks and the "top N and the entries around me" read mean the same everywhere.
"""

# rank_of(board, member): the competition rank (ties share it: 1, 1, 3) of `member`, or -1.
RANK_OF = """
local function rank_of(board, member)
  local sc = redis.call('ZSCORE', board, member)
  if not sc then return -1 end
  return redis.call('ZCOUNT', board, '-inf', '(' .. sc) + 1
end
"""

# One consistent read of a board.
# KEYS: board, entries (a hash of each member's JSON). ARGV: top, player or '', around.
# -> {count, {top [json, rank]...}, my position0 or -1, {around [json, rank]...}}
# (listing order: score, then member; rank: competition rank)
BOARD_READ = (
    RANK_OF
    + """
local function fetch(members)
  local out = {}
  for i, m in ipairs(members) do
    out[i] = {redis.call('HGET', KEYS[2], m) or '', rank_of(KEYS[1], m)}
  end
  return out
end
local count = redis.call('ZCARD', KEYS[1])
local top = fetch(redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1))
local r = -1
local around = {}
if ARGV[2] ~= '' then
  local z = redis.call('ZRANK', KEYS[1], ARGV[2])
  if z then
    r = z
    local k = tonumber(ARGV[3])
    around = fetch(redis.call('ZRANGE', KEYS[1], math.max(0, z - k), z + k))
  end
end
return {count, top, r, around}
"""
)
