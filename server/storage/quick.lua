-- Quick-match queue of one (game, seats): add a player (once) and, when
-- enough wait, take a full group out atomically. Any process may pair
-- players queued by any other.
-- KEYS: 1 queue list   ARGV: 1 player id   2 seats   3 TTL s of the queue
-- Returns the group (list of player ids) or an empty list.
redis.call('LREM', KEYS[1], 0, ARGV[1])
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
local seats = tonumber(ARGV[2])
if redis.call('LLEN', KEYS[1]) >= seats then
  local group = {}
  for k = 1, seats do group[k] = redis.call('LPOP', KEYS[1]) end
  return group
end
return {}
