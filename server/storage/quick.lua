-- Quick-match queue of one (game, seats): add a player (once) and, when
-- enough wait, take a full group out atomically. Any process may pair
-- players queued by any other.
-- The entry is the player's: each connection that queued it holds it (its id
-- in the player's holder set, in the queue's slot, living as long as the
-- queue); it leaves by 'l' (unqueue, from any connection) or with its last
-- holder ('r'); a group taken out takes its holder sets with it.
-- Each 'q' also brings the token with which that request claimed the entry's seat
-- (seats.lua): the entry keeps its tokens (KEYS[3]), and whatever takes it out returns
-- them, so that only those claims are given back: a player queued again meanwhile
-- claimed the seat with a token of a new entry, which keeps it.
-- A group taken out is out of the queue while its race is made; if that fails, 'u' puts
-- it back. What its players did meanwhile must hold then: a connection that let go ('r')
-- is noted in the player's gone set (KEYS[4]) by its id, and an unqueue ('l') counts up
-- the set's one member '*N' (N unqueues so far). An entry taken out carries its player's
-- count, and 'u' puts back only entries with a holder left and the same count: no unqueue
-- since they were taken out. A count, not a mark cleared at take-out, so that an unqueue
-- holds for every entry of the player out at that moment (queued again and taken out in
-- another group while the first is out). An unqueue then a new 'q' while the entry is out
-- still keeps the old entry's holders out: the new entry has only its own. A closed
-- connection's id is never used again, so a note of one stays true until it expires.
-- A holder's id is 'PROC/CONN': the process that holds the connection, then the connection.
-- A process that dies without closing its connections (kill -9) never lets go of their
-- entries, so each process marks itself alive in the queue's marks hash (until when, ms of
-- the Redis clock: 'q' marks the queueing process, 'a' renews the mark every second while
-- the process holds entries of the queue). An entry is seated only while one of its holders
-- is alive; one whose every holder's mark lapsed waits, passed over ("stale": its process may
-- only be stalled, and comes back when it renews its mark), and leaves the queue once the
-- last mark lapsed a drop time ago ("gone"), its claims then the caller's to give back, as
-- does an entry with no holder. A holder id without a '/' counts as alive (no process named).
-- KEYS: 1 queue list   2 the player's holder set   3 the player's token set
--       4 the player's gone set   5 the queue's marks hash (process -> alive until, ms)
-- ARGV: 1 op   2 player id   then, per op:
--   'q' queue the player, held by ARGV[3] (a connection id), in the same step:
--       a holder letting go meanwhile must not find the entry without one.
--       3 holder   4 seats   5 TTL s of the queue   6 the holder sets' key prefix
--       7 the seat's claim token   8 the token sets' key prefix   9 the gone sets' key prefix
--       10 the holder's process ('': none to mark)   11 how long a mark lasts (ms)
--       12 how long after its last mark lapsed a gone process's entries leave (ms)
--       The group is the first `seats` entries with a holder alive, in queue order.
--       Returns {the group taken out, {player, its tokens joined by ' ', its holders joined
--       by ' ', its player's unqueue count, ...} (empty if none), the entries that left for
--       good (gone), {player, its tokens joined by ' ', ...}}.
--   'g' take a full group out, if one waits, as 'q' does but queueing nobody (after a
--       put-back, which can leave a group waiting with nobody arriving). KEYS: the queue, then
--       the marks hash; ARGV as 'q''s, 2, 3, 7 and 10 ''. Returns what 'q' does.
--   'a' process ARGV[10] is alive: its mark is renewed (and lapsed ones are forgotten),
--       then as 'g'.
--   'w' who waits: KEYS and ARGV as 'g''s, with the player in ARGV[2]. Returns {1 if the
--       player is in the queue (alive or not) else 0, how many entries have a holder alive}.
--   'r' holder ARGV[3] lets go ('': a connection that holds nothing); the entry
--       leaves if no holder is left but gone ones. ARGV[4] TTL s of the gone set, ARGV[5]
--       the drop time (ms) of gone processes. Returns {1, tokens...} if it left, else {0}.
--   'l' the entry leaves, with its holders. ARGV[3] TTL s of the gone set.
--       Returns {1, tokens...} if there was one, else {0}.
--   'u' put back a group taken out by 'q' that could not be seated, at the head of the
--       queue in its order, each entry with what it carried, less the holders gone
--       meanwhile. A player queued again meanwhile keeps their place, their entry taking on
--       the old one's holders and tokens. Not put back: an entry unqueued meanwhile, or one
--       with no holder left and no new entry to join.
--       Here KEYS are 1 the queue, then per player its holder, token and gone sets;
--       ARGV: 2 '', 3 TTL s of the queue, then per player: id, holders, tokens (joined by ' '),
--       the unqueue count it was taken out with.
--       Returns the entries not put back, {player, its tokens joined by ' ', ...}: their
--       claims are the caller's to give back.
local op, pid = ARGV[1], ARGV[2]
-- The player's unqueue count in their gone set `gone`, and its member (nil if none: 0).
local function unqueues(gone)
  for _, m in ipairs(redis.call('SMEMBERS', gone)) do
    local n = string.match(m, '^%*(%d+)$')
    if n then return tonumber(n), m end
  end
  return 0, nil
end
if op == 'u' then
  local ttl = tonumber(ARGV[3])
  local count = (#ARGV - 3) / 4
  local dropped = {}
  for k = count, 1, -1 do
    -- its holder set is KEYS[3k-1], its token set KEYS[3k], its gone set KEYS[3k+1];
    -- its id ARGV[4k], holders ARGV[4k+1], tokens ARGV[4k+2], unqueue count ARGV[4k+3]
    local p = ARGV[4 * k]
    local queued = redis.call('LPOS', KEYS[1], p)
    local holders = {}
    if unqueues(KEYS[3 * k + 1]) == tonumber(ARGV[4 * k + 3]) then
      for h in string.gmatch(ARGV[4 * k + 1], '%S+') do
        if redis.call('SISMEMBER', KEYS[3 * k + 1], h) == 0 then holders[#holders + 1] = h end
      end
    end
    if #holders == 0 and not queued then
      dropped[#dropped + 1] = p
      dropped[#dropped + 1] = ARGV[4 * k + 2]
    else
      if not queued then redis.call('LPUSH', KEYS[1], p) end
      for _, h in ipairs(holders) do redis.call('SADD', KEYS[3 * k - 1], h) end
      for t in string.gmatch(ARGV[4 * k + 2], '%S+') do redis.call('SADD', KEYS[3 * k], t) end
      redis.call('EXPIRE', KEYS[3 * k - 1], ttl)
      redis.call('EXPIRE', KEYS[3 * k], ttl)
    end
  end
  if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ttl) end
  return dropped
end
local function noted_gone(who, ttl)
  redis.call('SADD', KEYS[4], who)
  redis.call('EXPIRE', KEYS[4], ttl)
end
local function taken_tokens(key)
  local tokens = redis.call('SMEMBERS', key)
  redis.call('DEL', key)
  return tokens
end
local function left(n)
  local out = {n}
  for _, t in ipairs(taken_tokens(KEYS[3])) do out[#out + 1] = t end
  if n == 0 then return {0} end
  return out
end
-- The processes' marks in the marks hash `key`: process -> alive until (ms, Redis clock).
local function read_marks(key)
  local flat = redis.call('HGETALL', key)
  local marks = {}
  for i = 1, #flat, 2 do marks[flat[i]] = tonumber(flat[i + 1]) end
  return marks
end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- The entry whose holder set is `holders`: 'live' if a holder is alive, else 'stale' if a
-- holder's process stopped marking itself less than `drop` ms ago, else 'gone' (no holder
-- left but those of processes gone for good); and its holders of gone processes.
local function entry_state(holders, marks, now, drop)
  local state, gone = 'gone', {}
  for _, h in ipairs(redis.call('SMEMBERS', holders)) do
    local proc = string.match(h, '^([^/]*)/')
    local alive_until = proc and marks[proc]
    if not proc or (alive_until and alive_until >= now) then
      state = 'live'
    elseif alive_until and alive_until + drop >= now then
      if state == 'gone' then state = 'stale' end
    else
      gone[#gone + 1] = h
    end
  end
  return state, gone
end
-- Process `proc` is alive for `live` ms from `now` (its mark in the marks hash `key`, which
-- lives as long as a mark matters); the marks that lapsed `drop` ms ago are forgotten.
local function mark(key, marks, proc, now, live, drop)
  for p, alive_until in pairs(marks) do
    if alive_until + drop < now then
      redis.call('HDEL', key, p)
      marks[p] = nil
    end
  end
  marks[proc] = now + live
  redis.call('HSET', key, proc, now + live)
  redis.call('PEXPIRE', key, live + drop)
end
if op == 'r' then
  if ARGV[3] ~= '' then noted_gone(ARGV[3], ARGV[4]) end
  redis.call('SREM', KEYS[2], ARGV[3])
  local state, gone = entry_state(KEYS[2], read_marks(KEYS[5]), now_ms(), tonumber(ARGV[5]))
  if state ~= 'gone' then
    if #gone > 0 then redis.call('SREM', KEYS[2], unpack(gone)) end
    return {0}
  end
  redis.call('DEL', KEYS[2])
  return left(redis.call('LREM', KEYS[1], 0, pid))
elseif op == 'l' then
  local n, member = unqueues(KEYS[4])
  if member then redis.call('SREM', KEYS[4], member) end
  noted_gone('*' .. (n + 1), ARGV[3])
  redis.call('DEL', KEYS[2])
  return left(redis.call('LREM', KEYS[1], 0, pid))
end
local ttl = tonumber(ARGV[5])
local live, drop = tonumber(ARGV[11]), tonumber(ARGV[12])
local now = now_ms()
local marks
if op == 'q' then
  marks = read_marks(KEYS[5])
  if ARGV[10] ~= '' then mark(KEYS[5], marks, ARGV[10], now, live, drop) end
  redis.call('SADD', KEYS[2], ARGV[3])
  redis.call('SADD', KEYS[3], ARGV[7])
  redis.call('LREM', KEYS[1], 0, pid)
  redis.call('RPUSH', KEYS[1], pid)
  redis.call('EXPIRE', KEYS[1], ttl)
else
  marks = read_marks(KEYS[2])
  if op == 'a' then mark(KEYS[2], marks, ARGV[10], now, live, drop) end
end
if op == 'w' then
  local alive = 0
  for _, p in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
    if entry_state(ARGV[6] .. p, marks, now, drop) == 'live' then alive = alive + 1 end
  end
  return {redis.call('LPOS', KEYS[1], pid) and 1 or 0, alive}
end
-- The entries gone for good leave; a group is the first `seats` of those alive.
local alive, dropped = {}, {}
for _, p in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local state, gone = entry_state(ARGV[6] .. p, marks, now, drop)
  if state == 'gone' then
    redis.call('LREM', KEYS[1], 0, p)
    redis.call('DEL', ARGV[6] .. p)
    dropped[#dropped + 1] = p
    dropped[#dropped + 1] = table.concat(taken_tokens(ARGV[8] .. p), ' ')
  else
    if #gone > 0 then redis.call('SREM', ARGV[6] .. p, unpack(gone)) end
    if state == 'live' then alive[#alive + 1] = p end
  end
end
local seats = tonumber(ARGV[4])
local group = {}
if #alive >= seats then
  for k = 1, seats do
    local p = alive[k]
    redis.call('LREM', KEYS[1], 1, p)
    group[#group + 1] = p
    group[#group + 1] = table.concat(taken_tokens(ARGV[8] .. p), ' ')
    group[#group + 1] = table.concat(taken_tokens(ARGV[6] .. p), ' ')
    local n = unqueues(ARGV[9] .. p)  -- an unqueue from now on is what 'u' heeds
    group[#group + 1] = tostring(n)
  end
end
-- Those who still wait: their holders and tokens live as long as the queue. This player too
-- when a group put back ahead of them ('u' can leave `seats` or more waiting) was taken
-- instead: their sets were just made, with no TTL. (Not for a renewed mark: the queue's own
-- TTL runs from its last arrival.)
if op ~= 'a' then
  for _, p in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
    redis.call('EXPIRE', ARGV[6] .. p, ttl)
    redis.call('EXPIRE', ARGV[8] .. p, ttl)
  end
end
return {group, dropped}
