-- Renew the leases a worker holds. KEYS: bots, leases. ARGV: worker, now ms, lease ms,
-- (bot, epoch)... -> per bot 1 (renewed), 0 (another epoch or worker: lost), -1 (no record)
local ends = tonumber(ARGV[2]) + tonumber(ARGV[3])
local out = {}
for i = 4, #ARGV - 1, 2 do
  local rec = redis.call('HGET', KEYS[1], ARGV[i])
  if not rec then
    out[#out + 1] = -1
  else
    local epoch, owner = string.match(rec, '^(%d+) (%S+) ')
    if epoch == ARGV[i + 1] and owner == ARGV[1] then
      redis.call('ZADD', KEYS[2], ends, ARGV[i])
      out[#out + 1] = 1
    else
      out[#out + 1] = 0
    end
  end
end
return out
