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
-- KEYS: 1 queue list   2 the player's holder set   3 the player's token set
--       4 the player's gone set
-- ARGV: 1 op   2 player id   then, per op:
--   'q' queue the player, held by ARGV[3] (a connection id), in the same step:
--       a holder letting go meanwhile must not find the entry without one.
--       3 holder   4 seats   5 TTL s of the queue   6 the holder sets' key prefix
--       7 the seat's claim token   8 the token sets' key prefix   9 the gone sets' key prefix
--       Returns the group taken out, {player, its tokens joined by ' ', its holders joined
--       by ' ', its player's unqueue count, ...}, or an empty list.
--   'g' take a full group out, if one waits, as 'q' does but queueing nobody (after a
--       put-back, which can leave a group waiting with nobody arriving). KEYS: the queue only;
--       ARGV as 'q''s, 2, 3 and 7 ''. Returns what 'q' does.
--   'r' holder ARGV[3] lets go ('': a connection that holds nothing); the entry
--       leaves if no holder is left. ARGV[4] TTL s of the gone set.
--       Returns {1, tokens...} if it left, else {0}.
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
if op == 'r' then
  if ARGV[3] ~= '' then noted_gone(ARGV[3], ARGV[4]) end
  redis.call('SREM', KEYS[2], ARGV[3])
  if redis.call('EXISTS', KEYS[2]) == 1 then return {0} end
  return left(redis.call('LREM', KEYS[1], 0, pid))
elseif op == 'l' then
  local n, member = unqueues(KEYS[4])
  if member then redis.call('SREM', KEYS[4], member) end
  noted_gone('*' .. (n + 1), ARGV[3])
  redis.call('DEL', KEYS[2])
  return left(redis.call('LREM', KEYS[1], 0, pid))
end
local ttl = tonumber(ARGV[5])
if op == 'q' then
  redis.call('SADD', KEYS[2], ARGV[3])
  redis.call('SADD', KEYS[3], ARGV[7])
  redis.call('LREM', KEYS[1], 0, pid)
  redis.call('RPUSH', KEYS[1], pid)
  redis.call('EXPIRE', KEYS[1], ttl)
end
local seats = tonumber(ARGV[4])
local group = {}
if redis.call('LLEN', KEYS[1]) >= seats then
  for k = 1, seats do
    local p = redis.call('LPOP', KEYS[1])
    group[#group + 1] = p
    group[#group + 1] = table.concat(taken_tokens(ARGV[8] .. p), ' ')
    group[#group + 1] = table.concat(taken_tokens(ARGV[6] .. p), ' ')
    local n = unqueues(ARGV[9] .. p)  -- an unqueue from now on is what 'u' heeds
    group[#group + 1] = tostring(n)
  end
end
-- Those who still wait: their holders and tokens live as long as the queue. This player too
-- when a group put back ahead of them ('u' can leave `seats` or more waiting) was taken
-- instead: their sets were just made, with no TTL.
for _, p in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  redis.call('EXPIRE', ARGV[6] .. p, ttl)
  redis.call('EXPIRE', ARGV[8] .. p, ttl)
end
return group
