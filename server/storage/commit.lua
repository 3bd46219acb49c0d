-- Compare-and-set of a race record (every change but moves: lobby, start, end).
-- The caller loaded the race at version `expected`, computed the new state
-- with server/core/races.py, and commits it only if nobody changed the race
-- meanwhile; on 'conflict' it reloads and tries again. The race version grows
-- by one per event (E >= 1); the events, already encoded with versions
-- expected+1 .. expected+E, are appended to the race stream and published.
--
-- KEYS: 1 race hash, 2 event stream, 3 the race's void mark (load.lua),
--       4 its voided joins (load.lua), 5..4+P player hashes written,
--       then any further race keys that only get the TTL (move logs)
-- ARGV: 1 expected ver (0: create; the race must not exist, nor have been
--         given up: its void mark set by load.lua)
--       2 channel   3 stream MAXLEN   4 TTL ms for every key in KEYS (0: keep; the void mark
--         never exists when this writes: a PEXPIRE of it does nothing; the voided joins
--         then live as the race, and this commit makes every older one a conflict)
--       5 a join attempt's token ('' none; refused if in KEYS[4], given up by load.lua)
--       6 E, then E event frames
--       then F, then F field/value pairs of the race hash
--       then P, then for each written player hash: C, then C pairs
-- Returns {'ok', ver} | {'conflict', current ver or -1} | {'void'} (nothing written)
local cur = redis.call('HGET', KEYS[1], 'ver')
local expected = tonumber(ARGV[1])
if expected == 0 then
  if cur then return {'conflict', tonumber(cur)} end
  -- Given up while this commit was on the way: its players may be back in their
  -- queue (server/handlers/seating.py), and storing it now would seat them twice.
  if redis.call('EXISTS', KEYS[3]) == 1 then return {'void'} end
elseif tonumber(cur or -1) ~= expected then
  return {'conflict', tonumber(cur or -1)}
end
-- A join found failed while this commit was on the way: the player was told "no effect"
-- and their seat given back (server/handlers/lobby.py `taking_seat`).
if ARGV[5] ~= '' and redis.call('SISMEMBER', KEYS[4], ARGV[5]) == 1 then return {'void'} end
local ne = tonumber(ARGV[6])
local ver = expected + math.max(ne, 1)
local i = 7 + ne
local nf = tonumber(ARGV[i])
i = i + 1
if nf > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, i, i + 2 * nf - 1)) end
i = i + 2 * nf
redis.call('HSET', KEYS[1], 'ver', ver)
local np = tonumber(ARGV[i])
i = i + 1
for k = 1, np do
  local c = tonumber(ARGV[i])
  i = i + 1
  if c > 0 then redis.call('HSET', KEYS[4 + k], unpack(ARGV, i, i + 2 * c - 1)) end
  i = i + 2 * c
end
for k = 1, ne do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], (expected + k) .. '-0', 'm', ARGV[6 + k])
  redis.call('PUBLISH', ARGV[2], ARGV[6 + k])
end
local ttl = tonumber(ARGV[4])
if ttl > 0 then
  for k = 1, #KEYS do redis.call('PEXPIRE', KEYS[k], ttl) end
end
return {'ok', ver}
