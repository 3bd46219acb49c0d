"""Lua scripts of the arenas (Redis 6.2; each touches one arena's slot, keys.py).

Pairing and applying results are computed in Python (pairing.py,
scoring.py) from a read of the arena; the scripts below only *check and
write*, atomically, so two server processes doing the same thing at once
cannot double anything: PAIR takes a group only if every player of it is
still free, APPLY writes a race's points only if the race was never applied
and every standing it was computed from is unchanged.
"""

from __future__ import annotations

from ..storage.boards_lua import BOARD_READ
from .keys import WORK_KEEP_MS

# The TTL every script that writes one of an arena's working keys (joined, free, busy, races,
# berserk, seq, last: keys.py) gives it in the same step: WORK_KEEP_MS past the arena's end,
# or past now once the end is behind. The finalization deletes them; should it never run, they
# expire on their own. KEYS: none of its own (meta is the caller's). -> ms
WORK_TTL = f"""
local function work_ttl(meta, now)
  local ends = tonumber(redis.call('HGET', meta, 'ends') or '0') or 0
  return math.floor(math.max(ends - tonumber(now), 0) + {WORK_KEEP_MS})
end
"""

# Create an arena once. KEYS: meta. ARGV: field, value, ... -> 1 created, 0 existed.
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# Join (or rejoin). KEYS: meta, joined, free, busy, standings, board.
# ARGV: player, now, initial standing json, initial score.
# -> {'ok'} | {'no-arena'} | {'over'}
JOIN = (
    WORK_TTL
    + """
local ends = redis.call('HGET', KEYS[1], 'ends')
if not ends then return {'no-arena'} end
if redis.call('HEXISTS', KEYS[1], 'finalized') == 1 or tonumber(ARGV[2]) >= tonumber(ends) then
  return {'over'}
end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('HSETNX', KEYS[5], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[6], 'NX', ARGV[4], ARGV[1])
if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 0 then
  redis.call('ZADD', KEYS[3], 'NX', ARGV[2], ARGV[1])
end
local ttl = work_ttl(KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
return {'ok'}
"""
)

# Withdraw: no more pairing (standing kept). KEYS: joined, free. ARGV: player. -> 1 if was joined.
WITHDRAW = """
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('SREM', KEYS[1], ARGV[1])
"""

# The free players for pairing. KEYS: free, board, last.
# -> {player, free since, standings position, last race or ''}...
FREE = """
local out = {}
local fr = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #fr, 2 do
  local pos = redis.call('ZRANK', KEYS[2], fr[i])
  out[#out + 1] = {fr[i], fr[i + 1], pos or -1, redis.call('HGET', KEYS[3], fr[i]) or ''}
end
return out
"""

# Form races: each group is taken only if all its players are still free.
# KEYS: meta, free, busy, races, seq. ARGV: now, then per group: race, n, player x n.
# -> {race ids taken} | {'not-running'} as the first element when pairing is closed
PAIR = (
    WORK_TTL
    + """
local now = tonumber(ARGV[1])
local starts = tonumber(redis.call('HGET', KEYS[1], 'starts') or 'nil')
local ends = tonumber(redis.call('HGET', KEYS[1], 'ends') or 'nil')
if not starts or redis.call('HEXISTS', KEYS[1], 'finalized') == 1 or now < starts or now >= ends then
  return {'not-running'}
end
local taken = {}
local i = 2
while i <= #ARGV do
  local race, n = ARGV[i], tonumber(ARGV[i + 1])
  local players = {}
  local ok = redis.call('HEXISTS', KEYS[4], race) == 0
  for j = 1, n do
    players[j] = ARGV[i + 1 + j]
    if ok and not redis.call('ZSCORE', KEYS[2], players[j]) then ok = false end
  end
  if ok then
    for j = 1, n do
      redis.call('ZREM', KEYS[2], players[j])
      redis.call('HSET', KEYS[3], players[j], race)
    end
    local seq = redis.call('INCR', KEYS[5])
    redis.call('HSET', KEYS[4], race, cjson.encode({race = race, players = players, formed = now, seq = seq}))
    taken[#taken + 1] = race
  end
  i = i + 2 + n
end
if #taken > 0 then
  local ttl = work_ttl(KEYS[1], now)
  for k = 3, 5 do redis.call('PEXPIRE', KEYS[k], ttl) end
end
return taken
"""
)

# The featured race: the formed race whose best player stands highest, i.e. the race of the
# highest-standing player who is in one (busy). The standings are walked from the top: in a
# live arena most players are racing, so the first or second answers, where reading every
# formed race (half the arena's players) blocked Redis for each request and update pass. The
# walk stops after as many players as are busy; then the busy ones' places are read instead,
# so a mostly idle arena costs no more than its few races. KEYS: board, busy. ARGV: chunk.
# -> race id or ''
FEATURED = """
local busy = redis.call('HLEN', KEYS[2])
local chunk = tonumber(ARGV[1])
local from = 0
while from < busy do
  local players = redis.call('ZRANGE', KEYS[1], from, math.min(from + chunk, busy) - 1)
  if #players == 0 then return '' end
  for i = 1, #players do  -- one at a time: usually the first or second is racing
    local race = redis.call('HGET', KEYS[2], players[i])
    if race then return race end
  end
  from = from + chunk
end
local best, best_race = nil, ''
local racing = redis.call('HGETALL', KEYS[2])
for i = 1, #racing, 2 do
  local pos = redis.call('ZRANK', KEYS[1], racing[i])
  if pos and (not best or pos < best) then best, best_race = pos, racing[i + 1] end
end
return best_race
"""

# Mark a player of a formed race berserk. KEYS: meta, races, berserk. ARGV: race, player, now.
# -> 1 | 0 (arena without berserk, no such formed race, or not its player)
BERSERK = (
    WORK_TTL
    + """
if redis.call('HGET', KEYS[1], 'berserk') ~= '1' then return 0 end
local r = redis.call('HGET', KEYS[2], ARGV[1])
if not r then return 0 end
for _, p in ipairs(cjson.decode(r).players) do
  if p == ARGV[2] then
    redis.call('HSET', KEYS[3], ARGV[1] .. '|' .. ARGV[2], 1)
    redis.call('PEXPIRE', KEYS[3], work_ttl(KEYS[1], ARGV[3]))
    return 1
  end
end
return 0
"""
)

# Apply a finished race's points, exactly once.
# KEYS: meta, races, busy, joined, free, standings, board, results, seq, berserk, channel,
#       last, then the history list of each player (same order as ARGV).
# ARGV: race, now, result json, n, then per player: player, standing read, new standing,
#       new score, history item, '1' if absent from the race (no move) else '0'.
# -> {'ok', seq} | {'dup'} | {'final'} | {'no-race'} | {'stale'}
APPLY = (
    WORK_TTL
    + """
local race, now = ARGV[1], ARGV[2]
if redis.call('HEXISTS', KEYS[8], race) == 1 then return {'dup'} end
if redis.call('HEXISTS', KEYS[1], 'finalized') == 1 then return {'final'} end
local formed = redis.call('HGET', KEYS[2], race)
if not formed then return {'no-race'} end
local n = tonumber(ARGV[4])
for j = 0, n - 1 do
  local b = 5 + 6 * j
  if (redis.call('HGET', KEYS[6], ARGV[b]) or '') ~= ARGV[b + 1] then return {'stale'} end
end
for j = 0, n - 1 do
  local b = 5 + 6 * j
  local p = ARGV[b]
  redis.call('HSET', KEYS[6], p, ARGV[b + 2])
  redis.call('ZADD', KEYS[7], ARGV[b + 3], p)
  if redis.call('HGET', KEYS[3], p) == race then redis.call('HDEL', KEYS[3], p) end
  redis.call('HDEL', KEYS[10], race .. '|' .. p)
  if ARGV[b + 5] == '1' then
    -- Absent from the race (no move): withdrawn, not paired again until they join again.
    redis.call('SREM', KEYS[4], p)
    redis.call('ZREM', KEYS[5], p)
  elseif redis.call('SISMEMBER', KEYS[4], p) == 1 and redis.call('HEXISTS', KEYS[3], p) == 0 then
    redis.call('ZADD', KEYS[5], 'NX', now, p)
  end
  redis.call('HSET', KEYS[12], p, race)
  redis.call('RPUSH', KEYS[13 + j], ARGV[b + 4])
end
redis.call('HDEL', KEYS[2], race)
local seq = redis.call('INCR', KEYS[9])
local res = cjson.decode(ARGV[3])
res.seq = seq
res.formed_seq = cjson.decode(formed).seq
redis.call('HSET', KEYS[8], race, cjson.encode(res))
local ttl = work_ttl(KEYS[1], now)
for _, k in ipairs({5, 9, 12}) do redis.call('PEXPIRE', KEYS[k], ttl) end
redis.call('PUBLISH', KEYS[11], cjson.encode({race = race, seq = seq}))
return {'ok', seq}
"""
)

# Drop a formed race that will not be played (its race could not be created):
# its players are free again, nobody scores. KEYS: races, busy, joined, free, berserk, meta.
# ARGV: race, now. -> 1 released, 0 no such formed race
RELEASE = (
    WORK_TTL
    + """
local r = redis.call('HGET', KEYS[1], ARGV[1])
if not r then return 0 end
for _, p in ipairs(cjson.decode(r).players) do
  if redis.call('HGET', KEYS[2], p) == ARGV[1] then redis.call('HDEL', KEYS[2], p) end
  redis.call('HDEL', KEYS[5], ARGV[1] .. '|' .. p)
  if redis.call('SISMEMBER', KEYS[3], p) == 1 then redis.call('ZADD', KEYS[4], 'NX', ARGV[2], p) end
end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[4], work_ttl(KEYS[6], ARGV[2]))
return 1
"""
)

# One consistent read of the standings.
# KEYS: board, standings. ARGV: top, player or '', around.
# -> {count, {top [json, rank]...}, my position0 or -1, {around [json, rank]...}}
STANDINGS = BOARD_READ

# Freeze an arena after its end: the final standings become a permanent
# record; formed races not applied by then (past the grace) never count.
# Every process's watchers learn it from the channel (a process whose loop no longer
# sees the arena would not notice otherwise).
# KEYS: meta, races, board, standings, final, joined, free, busy, berserk, seq, last, channel.
# ARGV: now, grace ms. -> {'ok'} | {'done'} | {'running'} | {'waiting', races} | {'no-arena'}
FINALIZE = """
local now = tonumber(ARGV[1])
local ends = tonumber(redis.call('HGET', KEYS[1], 'ends') or 'nil')
if not ends then return {'no-arena'} end
if redis.call('HEXISTS', KEYS[1], 'finalized') == 1 then return {'done'} end
if now < ends then return {'running'} end
local pending = redis.call('HLEN', KEYS[2])
if pending > 0 and now < ends + tonumber(ARGV[2]) then return {'waiting', pending} end
local parts = {}
local rows = redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')
local rank, prev = 0, nil
for i = 1, #rows, 2 do
  if rows[i + 1] ~= prev then rank = (i + 1) / 2 end
  prev = rows[i + 1]
  parts[#parts + 1] = '{"rank":' .. rank .. ',"standing":' .. (redis.call('HGET', KEYS[4], rows[i]) or 'null') .. '}'
end
redis.call('SET', KEYS[5], '[' .. table.concat(parts, ',') .. ']')
redis.call('HSET', KEYS[1], 'finalized', ARGV[1], 'entries', #rows / 2, 'dropped', pending)
redis.call('DEL', KEYS[2], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11])
redis.call('PUBLISH', KEYS[12], '{"final":true}')
return {'ok'}
"""
