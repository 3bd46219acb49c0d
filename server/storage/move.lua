-- The move path: ONE call per accepted move (server/storage/moves.py).
-- The server process has already checked the move against its cached
-- position; this script re-checks atomically what only Redis knows for sure
-- (race status, deadline and the player's own, the stored move count n), then stores the result
-- and publishes the public progress event, ready to forward.
--
-- KEYS: 1 race hash {race:ID}, 2 player hash {race:ID}:p:PID,
--       3 move log {race:ID}:log:PID, 4 event stream {race:ID}:ev
-- ARGV: 1 kind: 'm' move | 'f' declare finished | 'd' re-ack a duplicate only
--       2 n (the count the client believes it has made)   3 move notation
--       4 the position after the move (compact), or '' (only every few moves: the
--         log is the truth, the position a snapshot of it, see positions.py)
--       5 cards home after the move   6 won '1'|'0'
--       7 revealed cards as text ("w:7c t3:Kd")   8 race id   9 player id
--       10 pub/sub channel   11 stream MAXLEN (approximate, applied every 64th version)
--       12 ('m' only) the progress frame up to its version: a MessagePack map of
--          9 entries whose last key, "ver", is followed by 0xce (uint32); the
--          script appends the version, then "total" and "at" (uint8, uint64)
-- Returns frame (a move that leaves the player playing: ver and at are its bytes -24..-21
--       and -8..-1) | {'ok', n, at, ver, live, frame} | {'dup', n, home, status, at, revealed, ver}
--       | {'race-not-running'} | {'no-such-race'} | {'not-in-race'}
--       | {'game-over', n} | {'out-of-sync', n}
-- Kept lean (Redis CPU is part of every move's cost): the common case reads
-- two fields of the player and packs no table; the duplicate check reads the
-- rest only when the count says it may be one.
local r = redis.call('HMGET', KEYS[1], 'status', 'deadline', 'total')
if not r[1] then return {'no-such-race'} end
if r[1] ~= 'running' then return {'race-not-running'} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if now >= tonumber(r[2]) then return {'race-not-running'} end
local p = redis.call('HMGET', KEYS[2], 'n', 'status', 'dl')
local n = tonumber(p[1])
if not n then return {'not-in-race'} end
-- An arena player who berserked has their own, earlier deadline: their game is over.
if p[3] and now >= tonumber(p[3]) then return {'game-over', n} end
local kind = ARGV[1]
local sent = tonumber(ARGV[2])
if kind ~= 'f' then
  if sent == n - 1 then
    -- A retried duplicate (same n, same move as the last applied): re-ack.
    local q = redis.call('HMGET', KEYS[2], 'last', 'home', 'mt', 'rev')
    if q[1] == ARGV[3] then
      return {'dup', n, tonumber(q[2]), p[2], tonumber(q[3]), q[4],
              tonumber(redis.call('HGET', KEYS[1], 'ver'))}
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
-- Numbers go to Redis as strings made with '%d': a Lua number given to redis.call or
-- joined with '..' is formatted as a float ('%.17g'), several times slower.
local nows = string.format('%d', now)
if kind == 'm' then
  n = n + 1
  local ns = string.format('%d', n)
  -- The log entry keeps the cards home after the move: the ranking needs
  -- the earliest time the final count was reached.
  redis.call('RPUSH', KEYS[3], nows .. ' ' .. ARGV[5] .. ' ' .. ARGV[3])
  if ARGV[4] == '' then
    redis.call('HSET', KEYS[2], 'n', ns, 'home', ARGV[5], 'last', ARGV[3], 'rev', ARGV[7], 'mt', nows)
  else
    -- A snapshot of the position (every few moves; the log after it replays the rest).
    redis.call('HSET', KEYS[2], 'n', ns, 'home', ARGV[5], 'last', ARGV[3], 'rev', ARGV[7], 'mt', nows,
               'pos', ARGV[4], 'pn', ns)
  end
  if ARGV[6] == '1' then status = 'won' end
else
  home = tonumber(redis.call('HGET', KEYS[2], 'home'))
  status = 'finished'
end
if status ~= 'playing' then
  redis.call('HSET', KEYS[2], 'status', status, 'at', nows)
  live = redis.call('HINCRBY', KEYS[1], 'live', '-1')
end
local ver = redis.call('HINCRBY', KEYS[1], 'ver', '1')
local frame
if kind == 'm' then
  frame = ARGV[12] .. struct.pack('>I4', ver) .. '\165total\204' .. string.char(tonumber(r[3]))
          .. '\162at\207' .. struct.pack('>I8', now)
else
  frame = cmsgpack.pack({t = 'progress', race = ARGV[8], ver = ver, player = ARGV[9],
                         n = n, home = home, total = tonumber(r[3]), status = status, at = now})
end
-- The stream is trimmed (to about ARGV[11] entries) on every 64th version only: an XADD
-- with MAXLEN costs Redis a third more, and the stream stays within 64 of its bound.
if ver % 64 == 0 then
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[11], string.format('%d-0', ver), 'm', frame)
else
  redis.call('XADD', KEYS[4], string.format('%d-0', ver), 'm', frame)
end
redis.call('PUBLISH', ARGV[10], frame)
-- A plain move answers with its frame alone (the caller reads ver and at from its
-- last bytes): a table reply costs Redis 6.2 a deferred-length reply node, ~4 µs.
if live == -1 and kind == 'm' then return frame end
return {'ok', n, now, ver, live, frame}
