-- Read a whole race in one call: the server time, the race hash and the hash
-- of every seated player (their keys share the race's hash tag, so they are
-- in the same cluster slot as KEYS[1]).
-- KEYS: 1 race hash, 2 (optional) its void mark {race:ID}:void
-- ARGV: 1 player key prefix ("{race:ID}:p:"), 2 (with KEYS[2]) the mark's TTL ms
-- Returns {now_ms, race hash flat, pid1, player hash flat, pid2, ...}
-- or {now_ms} when the race does not exist.
-- With KEYS[2], a race that does not exist is given up for good: the mark makes
-- commit.lua refuse its creation, so a create commit delayed on the way (its
-- sender saw the connection fail) cannot store it after this said "not stored".
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local h = redis.call('HGETALL', KEYS[1])
if #h == 0 then
  if #KEYS > 1 then redis.call('SET', KEYS[2], '1', 'PX', ARGV[2]) end
  return {now}
end
local out = {now, h}
local seats = redis.call('HGET', KEYS[1], 'players')
if seats then
  for _, s in ipairs(cjson.decode(seats)) do
    out[#out + 1] = s.player
    out[#out + 1] = redis.call('HGETALL', ARGV[1] .. s.player)
  end
end
return out
