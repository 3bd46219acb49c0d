-- A player's seats, counted against MAX_RACES_PER_PLAYER in one step (handlers/lobby.py):
-- the set of race ids where the player sits (KEYS[1], pl:{PID}:races) and the player's
-- reservations (KEYS[2], pl:{PID}:seating, a sorted set: id -> deadline in ms, Redis time).
-- A reservation is a seat taken before its race holds the player (a create or join in
-- progress, or a quick-match entry waiting in its queue): it is in the seats set, so it
-- counts, and the seats' prune (storage/players.py `player_races`, handlers/session.py's
-- hello) leaves it alone until its deadline, though its race is not stored yet. Expired
-- reservations go first.
-- A queue entry's seat (a hold, quick:G:S or rquick:G) is also claimed by each request that
-- queued for it (KEYS[3], pl:{PID}:claims:HOLD, a set of tokens): a group taken out of its
-- queue gives back only the claims of the entry it took ('drop'), and the seat goes with
-- the last claim. A player queueing again while that group is being seated has claimed the
-- seat for the new entry, so it stays (docs/protocol.md §3 `quick`).
-- ARGV[1] op, then per op:
--   'reserve' 2 id   3 most seats   4 reservation ms   5 TTL s of the seats set
--             6 '1' renew (optional: a queue entry's seat, queued again)
--             7 claim token (optional, with KEYS[3]: a hold's)
--       Count and add in one step: returns {1, n} reserved (n seats before), {0, n} the id
--       was in the set already (nothing reserved: its deadline is pushed back if it is a
--       reservation, or with renew set, it is reserved again for ARGV[4] ms), {-1, n}
--       refused: n >= most seats held. A token claims the seat (unless refused); a seat
--       reserved anew starts with no other claim.
--   'drop'    2 id (a hold)   3.. tokens: these claims end; the seat and its reservation go
--             if no claim is left. Returns 1 if the seat went, else 0.
--   'snap'    the seats and the reservations: {seats, reserved ids}
--   'prune'   2.. ids: each leaves the seats set unless reserved; returns how many left
--   'release' 2.. ids: each leaves the seats set and its reservation
--   'settle'  2.. ids: each reservation ends (its seat stays: its race holds the player)
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local op = ARGV[1]
local function claim(token)
  if token and token ~= '' then
    redis.call('SADD', KEYS[3], token)
    redis.call('EXPIRE', KEYS[3], ARGV[5])
  end
end
if op == 'reserve' then
  local id = ARGV[2]
  local held = redis.call('SCARD', KEYS[1])
  local deadline = now + tonumber(ARGV[4])
  if redis.call('SISMEMBER', KEYS[1], id) == 1 then
    if ARGV[6] == '1' or redis.call('ZSCORE', KEYS[2], id) then
      redis.call('ZADD', KEYS[2], deadline, id)
      if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
    end
    claim(ARGV[7])
    return {0, held}
  end
  if held >= tonumber(ARGV[3]) then return {-1, held} end
  redis.call('SADD', KEYS[1], id)
  redis.call('EXPIRE', KEYS[1], ARGV[5])
  redis.call('ZADD', KEYS[2], deadline, id)
  if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
  if ARGV[7] and ARGV[7] ~= '' then redis.call('DEL', KEYS[3]) end  -- claims of a seat long gone
  claim(ARGV[7])
  return {1, held}
elseif op == 'snap' then
  return {redis.call('SMEMBERS', KEYS[1]), redis.call('ZRANGE', KEYS[2], 0, -1)}
elseif op == 'drop' then
  for i = 3, #ARGV do redis.call('SREM', KEYS[3], ARGV[i]) end
  if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
  redis.call('ZREM', KEYS[2], ARGV[2])
  return redis.call('SREM', KEYS[1], ARGV[2])
end
local n = 0
for i = 2, #ARGV do
  local id = ARGV[i]
  if op == 'prune' then
    if not redis.call('ZSCORE', KEYS[2], id) then n = n + redis.call('SREM', KEYS[1], id) end
  else
    redis.call('ZREM', KEYS[2], id)
    if op == 'release' then n = n + redis.call('SREM', KEYS[1], id) end
  end
end
return n
