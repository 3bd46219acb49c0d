"""Lua shared by the leaderboards kept in sorted sets (the daily challenge's board and an
arena's standings, where a lower score ranks higher; the rating board, where a higher one does):
each board's scripts are built from these pieces, so that ranks and the "top N and the entries
around me" read mean the same everywhere.
"""

from __future__ import annotations

# rank_of(board, member): the competition rank (ties share it: 1, 1, 3) of `member`, or -1.
RANK_OF = """
local function rank_of(board, member)
  local sc = redis.call('ZSCORE', board, member)
  if not sc then return -1 end
  return redis.call('ZCOUNT', board, '-inf', '(' .. sc) + 1
end
"""

# rank_of_high(board, member): the same where a higher score ranks higher (a rating board).
RANK_OF_HIGH = """
local function rank_of_high(board, member)
  local sc = redis.call('ZSCORE', board, member)
  if not sc then return -1 end
  return redis.call('ZCOUNT', board, '(' .. sc, '+inf') + 1
end
"""


def board_read(higher_first: bool = False, with_member: bool = False) -> str:
    """One consistent read of a board, as a script.

    KEYS: board, entries (a hash of each member's record). ARGV: top, player or '', around.
    -> {count, {top row...}, my position0 or -1, {around row...}}, a row being
    [record, rank], or [member, record, rank] `with_member`. Listed by score (lowest first,
    or highest with `higher_first`), then member (in reverse with `higher_first`: Redis's
    reverse range reverses both); rank: competition rank (ties share it, whatever the order).
    """
    if higher_first:
        rank, zrange, zrank = "rank_of_high", "ZREVRANGE", "ZREVRANK"
    else:
        rank, zrange, zrank = "rank_of", "ZRANGE", "ZRANK"
    row = "m, redis.call('HGET', KEYS[2], m) or ''" if with_member else "redis.call('HGET', KEYS[2], m) or ''"
    return (
        (RANK_OF_HIGH if higher_first else RANK_OF)
        + f"""
local function fetch(members)
  local out = {{}}
  for i, m in ipairs(members) do
    out[i] = {{{row}, {rank}(KEYS[1], m)}}
  end
  return out
end
local count = redis.call('ZCARD', KEYS[1])
local top = fetch(redis.call('{zrange}', KEYS[1], 0, tonumber(ARGV[1]) - 1))
local r = -1
local around = {{}}
if ARGV[2] ~= '' then
  local z = redis.call('{zrank}', KEYS[1], ARGV[2])
  if z then
    r = z
    local k = tonumber(ARGV[3])
    around = fetch(redis.call('{zrange}', KEYS[1], math.max(0, z - k), z + k))
  end
end
return {{count, top, r, around}}
"""
    )


# The daily board and an arena's standings: lower scores rank higher, rows [json, rank].
BOARD_READ = board_read()
