"""Lua scripts of the daily challenges (Redis 6.2; each touches one daily's slot)."""

from __future__ import annotations

from ..storage.boards_lua import BOARD_READ, RANK_OF

# Claim the player's one attempt. The attempts expire a week after the close from the first
# claim on (the finalization sets the same TTL): a day never finalized (no process ran within
# FINALIZE_LOOKBACK_DAYS of its close) must not keep them for good.
# KEYS: attempts, entries. ARGV: player, token, now, stale_ms, attempts ttl ms.
# -> {"done"} | {"race", ID} | {"pending"} | {"claimed"}
CLAIM = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {'done'} end
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v then
  if string.sub(v, 1, 5) == 'race:' then return {'race', string.sub(v, 6)} end
  local at = tonumber(string.match(v, ':(%d+)$'))
  if at and tonumber(ARGV[3]) - at <= tonumber(ARGV[4]) then return {'pending'} end
end
redis.call('HSET', KEYS[1], ARGV[1], 'pending:' .. ARGV[2] .. ':' .. ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {'claimed'}
"""

# Bind the created race to our claim, or release it (ARGV[3] == '').
# KEYS: attempts. ARGV: player, token, race id or ''.
# -> {"ok"} | {"lost", current value or ''}
BIND = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v or string.match(v, '^pending:([^:]*):') ~= ARGV[2] then return {'lost', v or ''} end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1])
else redis.call('HSET', KEYS[1], ARGV[1], 'race:' .. ARGV[3]) end
return {'ok'}
"""

# Record the result of an attempt, once (a repeat is a harmless "dup").
# KEYS: attempts, entries, board, moves, meta.
# ARGV: player, race, entry json, score, moves json, moves ttl ms.
# -> {"ok"|"dup", rank, count} | {"not-attempt"} | {"final"}
RECORD = (
    RANK_OF
    + """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= 'race:' .. ARGV[2] then return {'not-attempt'} end
local status = 'dup'
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then
  if redis.call('HEXISTS', KEYS[5], 'finalized') == 1 then return {'final'} end
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[4], ARGV[6])
  status = 'ok'
end
return {status, rank_of(KEYS[3], ARGV[1]), redis.call('ZCARD', KEYS[3])}
"""
)

# A player's entry and rank. KEYS: board, entries. ARGV: player.
# -> {entry json or '', rank or -1}
ENTRY = (
    RANK_OF
    + """
return {redis.call('HGET', KEYS[2], ARGV[1]) or '', rank_of(KEYS[1], ARGV[1])}
"""
)

# One consistent read of a leaderboard.
# KEYS: board, entries. ARGV: top, player or '', around.
# -> {count, {top [json, rank]...}, my position0 or -1, {around [json, rank]...}}
# (listing order: score, then player id; rank: competition rank, ties share it)
BOARD = BOARD_READ

# Freeze a closed day: publish the top replays, keep the seed in the record.
# KEYS: meta, board, moves, replays, attempts.
# ARGV: top, seed, now, attempts ttl ms. -> 1 if done now, 0 if already done.
FINALIZE = """
if redis.call('HEXISTS', KEYS[1], 'finalized') == 1 then return 0 end
for _, m in ipairs(redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1)) do
  local mv = redis.call('HGET', KEYS[3], m)
  if mv then redis.call('HSET', KEYS[4], m, mv) end
end
redis.call('HSET', KEYS[1], 'seed', ARGV[2], 'finalized', ARGV[3],
           'entries', redis.call('ZCARD', KEYS[2]))
redis.call('PEXPIRE', KEYS[5], ARGV[4])
return 1
"""
