-- A worker takes the request it has just popped, if it is still in `taking` (not taken back
-- from a stalled worker): out of `taking`, the bot recorded under its
-- lease (a fresh request), or claimed if its record still waits for this resume request, and
-- the worker's free slots (less the one it fills) reported, in one step. KEYS: slots, taking,
-- bots, leases. ARGV: worker, free slots before it, now ms, request json, lease ms.
-- -> {epoch, request json to play} or {0, why not}
local worker, free, now, raw = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local lease = tonumber(ARGV[5])
local mine = redis.call('LREM', KEYS[2], 1, raw) == 1
local ok, req = pcall(cjson.decode, raw)
local out
if not ok or type(req) ~= 'table' or type(req.player) ~= 'string' then
  out = {0, 'malformed'}
elseif (tonumber(req.expires) or 0) > 0 and tonumber(req.expires) < now then
  out = {0, 'expired'}
elseif req.kind == 'resume' then
  local rec = redis.call('HGET', KEYS[3], req.player)
  local epoch, owner, body
  if rec then epoch, owner, body = string.match(rec, '^(%d+) (%S+) (.*)$') end
  if not epoch then
    out = {0, 'over'}
  elseif tonumber(epoch) ~= tonumber(req.epoch) or owner ~= '-' then
    out = {0, 'taken'}
  elseif not mine then
    out = {0, 'taken back'}
  else
    redis.call('HSET', KEYS[3], req.player, epoch .. ' ' .. worker .. ' ' .. body)
    redis.call('ZADD', KEYS[4], now + lease, req.player)
    out = {tonumber(epoch), body}
  end
elseif redis.call('HEXISTS', KEYS[3], req.player) == 1 then
  out = {0, 'taken'}
elseif not mine then
  out = {0, 'taken back'}
else
  redis.call('HSET', KEYS[3], req.player, '1 ' .. worker .. ' ' .. raw)
  redis.call('ZADD', KEYS[4], now + lease, req.player)
  out = {1, raw}
end
if out[1] > 0 then free = free - 1 end
redis.call('HSET', KEYS[1], worker, string.format('%d %d', math.max(0, free), now))
return out
