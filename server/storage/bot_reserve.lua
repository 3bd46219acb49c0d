-- Push requests (all or none) only if the workers' free slots cover them beside the
-- requests already waiting (those expired at the queue's old end first dropped: bot_trim.lua).
-- KEYS: requests, slots, taking. ARGV: now ms, within ms, request json...
-- -> the spare slots before the push (pushed if at least the requests given)
trim(KEYS[1])
local now, within = tonumber(ARGV[1]), tonumber(ARGV[2])
local free = 0
local rows = redis.call('HGETALL', KEYS[2])
for i = 1, #rows, 2 do
  local n, at = string.match(rows[i + 1], '^(%d+) (%d+)$')
  at = tonumber(at)
  if not at or at < now - 10 * within then
    redis.call('HDEL', KEYS[2], rows[i])
  elseif at >= now - within then
    free = free + tonumber(n)
  end
end
-- a request a worker popped and never counted (it died meanwhile) holds no slot once expired
for _, raw in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do
  local ok, req = pcall(cjson.decode, raw)
  if not ok or type(req) ~= 'table' or (tonumber(req.expires) or 0) < now then
    redis.call('LREM', KEYS[3], 1, raw)
  end
end
local spare = free - redis.call('LLEN', KEYS[1]) - redis.call('LLEN', KEYS[3])
if spare >= #ARGV - 2 then
  for i = 3, #ARGV do redis.call('LPUSH', KEYS[1], ARGV[i]) end
end
return spare
