-- A worker's report of its free slots, and the request it has just taken (if any) out of
-- `taking`, in one step. KEYS: slots, taking. ARGV: worker, free, now ms ('': the Redis clock
-- now, read here: a worker's report then costs one round trip), request json or ''.
-- -> the time reported (ms)
local at = ARGV[3]
if at == '' then
  local t = redis.call('TIME')
  at = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
end
if ARGV[4] ~= '' then redis.call('LREM', KEYS[2], 1, ARGV[4]) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. at)
return tonumber(at)
