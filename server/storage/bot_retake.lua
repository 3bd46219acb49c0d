-- Put back on the queue the requests popped and left unclaimed (a stalled worker's): each one
-- in `taking` is noted when first seen, and re-queued (at the end popped next) once seen `hold`
-- ms ago; an expired one is dropped; notes of requests gone from `taking` are deleted.
-- KEYS: taking, seen, requests. ARGV: now ms, hold ms -> how many were re-queued
local now, hold = tonumber(ARGV[1]), tonumber(ARGV[2])
local present = {}
local n = 0
for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, req = pcall(cjson.decode, raw)
  local at = tonumber(redis.call('HGET', KEYS[2], raw))
  local expires = ok and type(req) == 'table' and tonumber(req.expires) or 0
  if not ok or type(req) ~= 'table' or (expires > 0 and expires < now) then
    redis.call('LREM', KEYS[1], 1, raw)
  elseif not at then
    redis.call('HSET', KEYS[2], raw, now)
    present[raw] = true
  elseif at <= now - hold then
    redis.call('LREM', KEYS[1], 1, raw)
    redis.call('RPUSH', KEYS[3], raw)
    n = n + 1
  else
    present[raw] = true
  end
end
for _, raw in ipairs(redis.call('HKEYS', KEYS[2])) do
  if not present[raw] then redis.call('HDEL', KEYS[2], raw) end
end
return n
