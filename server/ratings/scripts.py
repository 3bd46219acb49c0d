"""Lua scripts of accounts and ratings (Redis 6.2; each touches one slot)."""

from __future__ import annotations

from ..storage.boards_lua import board_read

# Apply a rated race's update once. The race marker is written in the same
# script as every rating, so the update is all-or-nothing and never twice.
# KEYS: marker, players, versions, board, hist 1..n, pair 1..m.
# ARGV: outcome json, marker ttl ms, n, hist max, pair ttl ms,
#       then n × (player, expected version, new record json, board score or '', hist entry),
#       then m × (pair times json).
# -> {"ok", outcome} | {"dup", stored outcome} | {"stale", player}
APPLY = """
local done = redis.call('GET', KEYS[1])
if done then return {'dup', done} end
local n = tonumber(ARGV[3])
for i = 1, n do
  local a = 5 + (i - 1) * 5
  local v = redis.call('HGET', KEYS[3], ARGV[a + 1]) or '0'
  if v ~= ARGV[a + 2] then return {'stale', ARGV[a + 1]} end
end
local hist_max = tonumber(ARGV[4])
for i = 1, n do
  local a = 5 + (i - 1) * 5
  local p = ARGV[a + 1]
  redis.call('HSET', KEYS[2], p, ARGV[a + 3])
  redis.call('HSET', KEYS[3], p, tostring(tonumber(ARGV[a + 2]) + 1))
  if ARGV[a + 4] ~= '' then redis.call('ZADD', KEYS[4], ARGV[a + 4], p) end
  redis.call('LPUSH', KEYS[4 + i], ARGV[a + 5])
  redis.call('LTRIM', KEYS[4 + i], 0, hist_max - 1)
end
local first_pair = 5 + n * 5
for j = 5 + n, #KEYS do
  redis.call('SET', KEYS[j], ARGV[first_pair + (j - 4 - n)], 'PX', ARGV[5])
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {'ok', ARGV[1]}
"""

# Compare-and-set of one string key ('' = missing: a new value '' deletes it). KEYS: key.
# ARGV: expected, new value, ttl ms. -> 1 if set, 0 if the value had changed.
CAS = """
local v = redis.call('GET', KEYS[1]) or ''
if v ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1
"""

# Create an account record unless the player already has one; marked `claiming` until its
# claim's later steps are done (accounts_store.Accounts.claim).
# KEYS: account. ARGV: name, key, pw hash, now. -> {"ok"} | {"exists", key}
CREATE = """
local k = redis.call('HGET', KEYS[1], 'key')
if k then return {'exists', k} end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'key', ARGV[2], 'pw', ARGV[3], 'created', ARGV[4], 'updated', ARGV[4],
  'claiming', ARGV[4])
return {'ok'}
"""

# Undo an account whose claim lost its name (another claim took the reservation over while
# this one was slow to make it: accounts_store.Accounts._finish_claim), only while it is still as
# that claim made it: the player is the guest it was, free to claim another name. Its sessions
# go too: a claim gives its token only once its name is confirmed.
# KEYS: account, sessions. ARGV: key, pw hash. -> 1 | 0 (not that claim's unfinished account)
UNDO_CLAIM = """
local rec = redis.call('HMGET', KEYS[1], 'key', 'pw', 'claiming')
if rec[1] ~= ARGV[1] or rec[2] ~= ARGV[2] or not rec[3] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
"""

# Replace the password hash if it is still the one verified; unless ARGV[5] is
# '0' (a rehash with new cost parameters), revoke every session but the one kept, and
# move the account's revocation count (`epoch`) on: a login verified before this
# change then makes no session (NEW_SESSION); an unfinished claim (`claiming`) ends with it:
# the guest's token no longer resumes the player.
# KEYS: account, sessions. ARGV: old hash, new hash, now, kept session or '', revoke '1'|'0'.
# -> 1 | 0 (the password changed meanwhile)
SET_PASSWORD = """
if redis.call('HGET', KEYS[1], 'pw') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'pw', ARGV[2], 'updated', ARGV[3])
if ARGV[5] == '0' then return 1 end
redis.call('HINCRBY', KEYS[1], 'epoch', 1)
redis.call('HDEL', KEYS[1], 'claiming')
local kept = ARGV[4] ~= '' and redis.call('HGET', KEYS[2], ARGV[4])
redis.call('DEL', KEYS[2])
if kept then
  redis.call('HSET', KEYS[2], ARGV[4], kept)
  -- The DEL took the hash's TTL with it: the hash lives as long as the session it keeps, or a
  -- session never used again would leave it for good (nothing else expires it).
  redis.call('PEXPIRE', KEYS[2], string.format('%.0f', math.max(1, tonumber(kept) - tonumber(ARGV[3]))))
end
return 1
"""

# Revoke every session of the account, and move its revocation count on and end an unfinished
# claim (as SET_PASSWORD).
# KEYS: account, sessions. -> 1
LOGOUT_EVERYWHERE = """
redis.call('DEL', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'epoch', 1)
  redis.call('HDEL', KEYS[1], 'claiming')
end
return 1
"""

# A new session for a login (or a claim), only if the account is still as the login
# verified it: the same password hash and no revocation since (`epoch`). A login checks
# its password for tens of milliseconds; a `password` or `logout_all` landing meanwhile
# must not be followed by a session made from the old password. Expired sessions go, and
# beyond ARGV[7] live ones the least recently used (a session's value is its expiry,
# renewed at each use) make room.
# KEYS: account, sessions. ARGV: hash verified, epoch read ('0' if none), session id,
# its expiry, sessions key TTL ms, now, most sessions. -> 1 | 0 (changed since: no session)
NEW_SESSION = """
if redis.call('HGET', KEYS[1], 'pw') ~= ARGV[1] then return 0 end
if (redis.call('HGET', KEYS[1], 'epoch') or '0') ~= ARGV[2] then return 0 end
local now = tonumber(ARGV[6])
local flat = redis.call('HGETALL', KEYS[2])
local live = {}
for i = 1, #flat, 2 do
  local expires = tonumber(flat[i + 1])
  if expires <= now then
    redis.call('HDEL', KEYS[2], flat[i])
  else
    live[#live + 1] = {flat[i], expires}
  end
end
local over = #live - tonumber(ARGV[7]) + 1
if over > 0 then
  table.sort(live, function(a, b) return a[2] < b[2] end)
  for i = 1, over do redis.call('HDEL', KEYS[2], live[i][1]) end
end
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1
"""

# A consistent read of a leaderboard (higher ordinal first).
# KEYS: board, players. ARGV: top, player or '', around.
# -> {count, {top [player, record, rank]...}, my index0 or -1, {around [player, record, rank]...}}
BOARD = board_read(higher_first=True, with_member=True)

# The rated pool's entries (pool.py). Each entry is held by the connections that asked
# for it (`{mm:G}:held:P`), carries the tokens with which those requests claimed its
# seat (`{mm:G}:tok:P`, storage/seats.lua) and the login session it was made with
# (`{mm:G}:sessions`): whatever takes an entry out takes its holders, tokens and
# session with it, in the same step, and returns the tokens, so that only those claims
# are given back (a new entry of the player's, made meanwhile, keeps the seat, the
# holders and the session of its own). A group taken out is out of the pool while its
# race is made; if that fails it is put back (RESTORE), as its players left it: a
# connection letting go (RELEASE_HOLD) or the player leaving (LEAVE) is noted in the
# player's gone set (``{mm:G}:gone:P``: the connection's id, or '*' for a leave; JOIN
# clears the '*': a new entry). A closed connection's id is never used again, so a note
# of one stays true until it expires.
_TAKE_TOKENS = """
local function take_tokens(key)
  local tokens = redis.call('SMEMBERS', key)
  redis.call('DEL', key)
  return tokens
end
local function noted_gone(key, who, ttl)
  redis.call('SADD', key, who)
  redis.call('PEXPIRE', key, ttl)
end
local function left(n, key, sessions, player)
  local tokens = take_tokens(key)
  if n == 0 then return {0} end
  redis.call('HDEL', sessions, player)
  local out = {1}
  for _, t in ipairs(tokens) do out[#out + 1] = t end
  return out
end
"""

# Note a waiting entry's last `quick` or keep-alive (JOIN, KEEP), from which it goes stale.
_NOTE_SEEN = """
local function note_seen(pool, player, entry, now)
  -- The entry's own text, its "seen" (if any) replaced: re-encoding it would not give the
  -- text pool.py compares entries with.
  local head = string.match(entry, '^(.*),"seen":%d+}$') or string.sub(entry, 1, -2)
  redis.call('HSET', pool, player, head .. ',"seen":' .. now .. '}')
end
"""

# Join the rated quick-match pool; a player already waiting for the same size
# keeps their place (their original join time), and the entry notes this join as
# its last one (`"seen"`, written where pool._entry puts it: last), from which it
# goes stale (pool.py) unless kept alive since (KEEP): a player who keeps queueing
# is not dropped. The connection that asked, if given, becomes one of the entry's
# holders, and the request's claim token, if given, one of its tokens, and its
# login session, if given, the entry's (in the same step: a holder letting go
# meanwhile must not find the new entry without one, nor a group taken out an
# entry without its tokens or session).
# KEYS: pool, holders, tokens, sessions, gone. ARGV: player, entry json, seats, holder or '',
# holders ttl ms, claim token or '', tokens ttl ms, login session or '', sessions ttl s, now ms.
# -> 1 joined now | 0 already waiting
JOIN = (
    _NOTE_SEEN
    + """
redis.call('SREM', KEYS[5], '*')
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[8])
  redis.call('EXPIRE', KEYS[4], ARGV[9])
end
if ARGV[4] ~= '' then
  redis.call('SADD', KEYS[2], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
if ARGV[6] ~= '' then
  redis.call('SADD', KEYS[3], ARGV[6])
  redis.call('PEXPIRE', KEYS[3], ARGV[7])
end
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v and cjson.decode(v).seats == tonumber(ARGV[3]) then
  note_seen(KEYS[1], ARGV[1], v, ARGV[10])
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
)

# Keep a waiting entry from going stale for the connections of a live process that hold it
# (pool.py `keep`, handlers/rated_queue.py `keep_alive`), as a `quick` again would: its
# `seen` is now (its place, `joined`, kept), and its holders, tokens and session live on.
# Only if it still waits and one of those connections still holds it: an entry taken out
# (a group seated, `unqueue`, the last holder's release, a stale drop) is never made again,
# and a new entry of the player's is kept by those that hold it.
# KEYS: pool, holders, tokens, sessions. ARGV: player, now ms, holders ttl ms, tokens ttl ms,
# sessions ttl s, then the connections' holder ids. -> 1 kept | 0 not (no such entry held)
KEEP = (
    _NOTE_SEEN
    + """
local held = false
for i = 6, #ARGV do
  if redis.call('SISMEMBER', KEYS[2], ARGV[i]) == 1 then held = true break end
end
if not held then return 0 end
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
note_seen(KEYS[1], ARGV[1], v, ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 1 then redis.call('EXPIRE', KEYS[4], ARGV[5]) end
return 1
"""
)

# Take a formed group out of the pool, all of it or nothing: every member must
# still wait with the entry it was formed from (another process may have taken
# or the player withdrawn it meanwhile). Each member's holders, tokens and session go
# with its entry: a player joining again right after gets a holder set, tokens and a
# session of their own (the seating must neither forget nor give back nor take them).
# KEYS: pool, sessions, then per member: holders, tokens, gone.
# ARGV: player1, entry1, player2, entry2, ...
# -> 0 not taken | per member {holders, tokens, session or ''}
TAKE = (
    _TAKE_TOKENS
    + """
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then return 0 end
end
local out = {}
for i = 1, #ARGV, 2 do
  local m = (i + 1) / 2
  redis.call('HDEL', KEYS[1], ARGV[i])
  local session = redis.call('HGET', KEYS[2], ARGV[i]) or ''
  redis.call('HDEL', KEYS[2], ARGV[i])
  out[m] = {take_tokens(KEYS[3 * m]), take_tokens(KEYS[3 * m + 1]), session}
end
return out
"""
)

# Put back members of a taken group that were not seated after all, each with its
# entry as it was (its waiting time kept) unless the player joined again meanwhile
# (the new entry stays, with its session), and with its holders, less those gone
# meanwhile, and tokens, merged into the new entry's if there is one: the entry is the
# player's, whoever queued it. Not put back: a member who left the pool meanwhile, or
# whose every holder let go (and who has no new entry).
# KEYS: pool, sessions, then per member: holders, tokens, gone. ARGV: holders ttl ms,
# tokens ttl ms, sessions ttl s, then per member: player, entry, holders joined by ' ',
# tokens joined by ' ', session or ''. -> the members not put back, {player, tokens
# joined by ' ', ...}: their claims are the caller's to give back.
RESTORE = """
local m = 0
local dropped = {}
for i = 4, #ARGV, 5 do
  m = m + 1
  local player = ARGV[i]  -- its holder set is KEYS[3m], its token set KEYS[3m+1], its gone set KEYS[3m+2]
  local waits = redis.call('HEXISTS', KEYS[1], player) == 1
  local holders = {}
  if redis.call('SISMEMBER', KEYS[3 * m + 2], '*') == 0 then
    for h in string.gmatch(ARGV[i + 2], '%S+') do
      if redis.call('SISMEMBER', KEYS[3 * m + 2], h) == 0 then holders[#holders + 1] = h end
    end
  end
  if #holders == 0 and not waits then
    dropped[#dropped + 1] = player
    dropped[#dropped + 1] = ARGV[i + 3]
  else
    if not waits then
      redis.call('HSET', KEYS[1], player, ARGV[i + 1])
      if ARGV[i + 4] ~= '' then redis.call('HSET', KEYS[2], player, ARGV[i + 4]) end
    end
    for _, h in ipairs(holders) do redis.call('SADD', KEYS[3 * m], h) end
    for t in string.gmatch(ARGV[i + 3], '%S+') do redis.call('SADD', KEYS[3 * m + 1], t) end
    redis.call('PEXPIRE', KEYS[3 * m], ARGV[1])
    redis.call('PEXPIRE', KEYS[3 * m + 1], ARGV[2])
  end
end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
return dropped
"""

# Remove a (stale) entry if unchanged, with its holders, tokens and session.
# KEYS: pool, holders, tokens, sessions. ARGV: player, entry. -> {1, tokens...} | {0}
DROP = (
    _TAKE_TOKENS
    + """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return {0} end
redis.call('DEL', KEYS[2])
return left(redis.call('HDEL', KEYS[1], ARGV[1]), KEYS[3], KEYS[4], ARGV[1])
"""
)

# A holder of a player's entry lets go (its connection closed); the entry leaves
# with its last holder, and its tokens and session with it.
# KEYS: holders, pool, tokens, sessions, gone. ARGV: holder, player, gone ttl ms.
# -> {1, tokens...} left | {0} not
RELEASE_HOLD = (
    _TAKE_TOKENS
    + """
noted_gone(KEYS[5], ARGV[1], ARGV[3])
redis.call('SREM', KEYS[1], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then return {0} end
return left(redis.call('HDEL', KEYS[2], ARGV[2]), KEYS[3], KEYS[4], ARGV[2])
"""
)

# A player's entry leaves the pool with its holders, tokens and session.
# KEYS: pool, holders, tokens, sessions, gone. ARGV: player, gone ttl ms.
# -> {1, tokens...} | {0} (no entry)
LEAVE = (
    _TAKE_TOKENS
    + """
noted_gone(KEYS[5], '*', ARGV[2])
redis.call('DEL', KEYS[2])
return left(redis.call('HDEL', KEYS[1], ARGV[1]), KEYS[3], KEYS[4], ARGV[1])
"""
)
