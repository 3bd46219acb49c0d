-- A worker lets bots go: 'drop' (through with their race: no record), 'release' (ends
-- their leases now: the next rescue re-queues them). Only the leases it holds.
-- KEYS: bots, leases. ARGV: worker, 'drop' or 'release', (bot, epoch)... -> how many
local n = 0
for i = 3, #ARGV - 1, 2 do
  local rec = redis.call('HGET', KEYS[1], ARGV[i])
  local epoch, owner
  if rec then epoch, owner = string.match(rec, '^(%d+) (%S+) ') end
  if epoch == ARGV[i + 1] and owner == ARGV[1] then
    if ARGV[2] == 'drop' then
      redis.call('HDEL', KEYS[1], ARGV[i])
      redis.call('ZREM', KEYS[2], ARGV[i])
    else
      redis.call('ZADD', KEYS[2], 0, ARGV[i])
    end
    n = n + 1
  end
end
return n
