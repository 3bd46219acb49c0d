-- A measurement script (bench/move_script_bench.py NAME=BATCH:K), not used by the server:
-- the move path batched, the moves the server would send in one event-loop tick in ONE call. Each move is checked and stored exactly as move.lua does it
-- (server/storage/move.lua: see there for the checks, the keys and the replies); the batch saves Redis the
-- per-call overhead (dispatch, the script's own MULTI/EXEC and AOF wrapping, the reply).
--
-- KEYS: 4 per move, in order: race hash, player hash, move log, event stream
-- ARGV: 1 stream MAXLEN (approximate, applied every 64th version), then 11 per move,
--       in order: kind, n, move, position or '', home, won, revealed, race id,
--       player id, pub/sub channel, ('m' only) the progress frame up to its version
--       (move.lua's ARGV 1..10 and 12)
-- Returns one reply per move, in order: move.lua's reply, or {'err', message} when that
-- move raised an error (it is caught: the moves before it stay stored and acknowledged,
-- the moves after it are still tried).
local maxlen = ARGV[1]

local function move(k, a)
  local r = redis.call('HMGET', KEYS[k + 1], 'status', 'deadline', 'total')
  if not r[1] then return {'no-such-race'} end
  if r[1] ~= 'running' then return {'race-not-running'} end
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  if now >= tonumber(r[2]) then return {'race-not-running'} end
  local p = redis.call('HMGET', KEYS[k + 2], 'n', 'status', 'dl')
  local n = tonumber(p[1])
  if not n then return {'not-in-race'} end
  if p[3] and now >= tonumber(p[3]) then return {'game-over', n} end
  local kind = ARGV[a + 1]
  local sent = tonumber(ARGV[a + 2])
  local mv = ARGV[a + 3]
  if kind ~= 'f' then
    if sent == n - 1 then
      local q = redis.call('HMGET', KEYS[k + 2], 'last', 'home', 'mt', 'rev')
      if q[1] == mv then
        return {'dup', n, tonumber(q[2]), p[2], tonumber(q[3]), q[4],
                tonumber(redis.call('HGET', KEYS[k + 1], 'ver'))}
      end
    end
    if kind == 'd' then return {'out-of-sync', n} end
    if p[2] ~= 'playing' then return {'game-over', n} end
    if sent ~= n then return {'out-of-sync', n} end
  elseif p[2] ~= 'playing' then
    return {'game-over', n}
  end
  local status = 'playing'
  local home
  local live = -1
  local nows = string.format('%d', now)
  if kind == 'm' then
    n = n + 1
    local ns = string.format('%d', n)
    local hs = ARGV[a + 5]
    redis.call('RPUSH', KEYS[k + 3], nows .. ' ' .. hs .. ' ' .. mv)
    local pos = ARGV[a + 4]
    if pos == '' then
      redis.call('HSET', KEYS[k + 2], 'n', ns, 'home', hs, 'last', mv, 'rev', ARGV[a + 7], 'mt', nows)
    else
      redis.call('HSET', KEYS[k + 2], 'n', ns, 'home', hs, 'last', mv, 'rev', ARGV[a + 7], 'mt', nows,
                 'pos', pos, 'pn', ns)
    end
    if ARGV[a + 6] == '1' then status = 'won' end
  else
    home = tonumber(redis.call('HGET', KEYS[k + 2], 'home'))
    status = 'finished'
  end
  if status ~= 'playing' then
    redis.call('HSET', KEYS[k + 2], 'status', status, 'at', nows)
    live = redis.call('HINCRBY', KEYS[k + 1], 'live', '-1')
  end
  local ver = redis.call('HINCRBY', KEYS[k + 1], 'ver', '1')
  local frame
  if kind == 'm' then
    frame = ARGV[a + 11] .. struct.pack('>I4', ver) .. '\165total\204' .. string.char(tonumber(r[3]))
            .. '\162at\207' .. struct.pack('>I8', now)
  else
    frame = cmsgpack.pack({t = 'progress', race = ARGV[a + 8], ver = ver, player = ARGV[a + 9],
                           n = n, home = home, total = tonumber(r[3]), status = status, at = now})
  end
  if ver % 64 == 0 then
    redis.call('XADD', KEYS[k + 4], 'MAXLEN', '~', maxlen, string.format('%d-0', ver), 'm', frame)
  else
    redis.call('XADD', KEYS[k + 4], string.format('%d-0', ver), 'm', frame)
  end
  redis.call('PUBLISH', ARGV[a + 10], frame)
  if live == -1 and kind == 'm' then return frame end
  return {'ok', n, now, ver, live, frame}
end

local out = {}
for i = 0, #KEYS / 4 - 1 do
  local ok, reply = pcall(move, i * 4, 1 + i * 11)
  if ok then
    out[i + 1] = reply
  elseif type(reply) == 'table' and reply.err then
    out[i + 1] = {'err', reply.err}
  else
    out[i + 1] = {'err', tostring(reply)}
  end
end
return out
