-- Trim the old end of the bot request queue: the requests there (popped next) that no worker
-- would play any more, expired by the Redis clock (a claim refuses them: its clock is later
-- still) or malformed, are dropped, at most 1000 a call, up to the first one a worker may
-- still play. Not a script by itself: bots.py puts it ahead of the scripts that push
-- (bot_push.lua, bot_reserve.lua), which call it on the queue; so a queue no worker pops
-- holds about the requests of the last minute (REQUEST_TTL_MS), not every one ever pushed.
-- trim(queue) -> how many were dropped
local function trim(queue)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local n = 0
  while n < 1000 do
    local raw = redis.call('LINDEX', queue, -1)
    if not raw then break end
    local ok, req = pcall(cjson.decode, raw)
    local live = ok and type(req) == 'table' and type(req.player) == 'string'
    if live and not ((tonumber(req.expires) or 0) > 0 and tonumber(req.expires) < now) then break end
    redis.call('RPOP', queue)
    n = n + 1
  end
  return n
end
