-- Quick-match queue of one (game, seats): add a player (once) and, when
-- enough wait, take a full group out atomically. Any process may pair
-- players queued by any other.
-- The entry is the player's: each connection that queued it holds it (its id
-- in the player's holder set, in the queue's slot, living as long as the
-- queue); it leaves by 'l' (unqueue, from any connection) or with its last
-- holder ('r'); a group taken out takes its holder sets with it.
-- KEYS: 1 queue list   2 the player's holder set
-- ARGV: 1 op   2 player id   then, per op:
--   'q' queue the player, held by ARGV[3] (a connection id), in the same step:
--       a holder letting go meanwhile must not find the entry without one.
--       3 holder   4 seats   5 TTL s of the queue   6 the holder sets' key prefix
--       Returns the group (list of player ids) or an empty list.
--   'r' holder ARGV[3] lets go ('': a connection that holds nothing); the entry
--       leaves if no holder is left. Returns 1 if it left, else 0.
--   'l' the entry leaves, with its holders. Returns 1 if there was one, else 0.
local op, pid = ARGV[1], ARGV[2]
if op == 'r' then
  redis.call('SREM', KEYS[2], ARGV[3])
  if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
  return redis.call('LREM', KEYS[1], 0, pid)
elseif op == 'l' then
  redis.call('DEL', KEYS[2])
  return redis.call('LREM', KEYS[1], 0, pid)
end
local ttl = tonumber(ARGV[5])
redis.call('SADD', KEYS[2], ARGV[3])
redis.call('LREM', KEYS[1], 0, pid)
redis.call('RPUSH', KEYS[1], pid)
redis.call('EXPIRE', KEYS[1], ttl)
local seats = tonumber(ARGV[4])
if redis.call('LLEN', KEYS[1]) >= seats then
  local group = {}
  for k = 1, seats do
    group[k] = redis.call('LPOP', KEYS[1])
    redis.call('DEL', ARGV[6] .. group[k])
  end
  return group
end
-- Fewer than `seats` wait: each one's holders live as long as the queue.
for _, p in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  redis.call('EXPIRE', ARGV[6] .. p, ttl)
end
return {}
