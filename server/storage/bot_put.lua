-- Write a bot's record and lease, if it is the worker's or missing (Redis lost it, or the
-- bot's race is now known). KEYS: bots, leases. ARGV: worker, now ms, lease ms, bot, epoch,
-- request json -> 1 written, 0 not (another worker's)
local rec = redis.call('HGET', KEYS[1], ARGV[4])
if rec then
  local epoch, owner = string.match(rec, '^(%d+) (%S+) ')
  if epoch ~= ARGV[5] or owner ~= ARGV[1] then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[4], ARGV[5] .. ' ' .. ARGV[1] .. ' ' .. ARGV[6])
redis.call('ZADD', KEYS[2], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[4])
return 1
