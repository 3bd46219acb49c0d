-- Re-queue the bots whose lease has ended: next epoch, no worker, a resume request at the
-- head of the queue (held RESUME_HOLD_MS: then re-queued again). KEYS: bots, leases,
-- requests. ARGV: now ms, hold ms, most bots -> how many were re-queued
local now, hold = tonumber(ARGV[1]), tonumber(ARGV[2])
local n = 0
for _, bot in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))) do
  local rec = redis.call('HGET', KEYS[1], bot)
  local epoch, body
  if rec then epoch, body = string.match(rec, '^(%d+) %S+ (.*)$') end
  if not epoch then
    redis.call('ZREM', KEYS[2], bot)
    redis.call('HDEL', KEYS[1], bot)
  else
    local e = tonumber(epoch) + 1
    redis.call('HSET', KEYS[1], bot, string.format('%d - ', e) .. body)
    redis.call('ZADD', KEYS[2], now + hold, bot)
    redis.call('RPUSH', KEYS[3], string.format(
      '{"kind":"resume","level":"","token":"","player":%s,"game":"","epoch":%d,"expires":%d}',
      cjson.encode(bot), e, now + hold))
    n = n + 1
  end
end
return n
