-- Read a whole race in one call: the server time, the race hash and the hash
-- of every seated player (their keys share the race's hash tag, so they are
-- in the same cluster slot as KEYS[1]).
-- KEYS: 1 race hash, 2 (optional) its void mark {race:ID}:void,
--       3 (optional, with 2) its voided joins {race:ID}:void:joins
-- ARGV: 1 player key prefix ("{race:ID}:p:"), 2 (with KEYS[2]) the mark's TTL ms,
--       3 (with KEYS[3]) a join attempt's token
-- Returns {now_ms, race hash flat, pid1, player hash flat, pid2, ...}
-- or {now_ms} when the race does not exist.
-- With KEYS[2], a race that does not exist is given up for good: the mark makes
-- commit.lua refuse its creation, so a create commit delayed on the way (its
-- sender saw the connection fail) cannot store it after this said "not stored".
-- With KEYS[3], a race that exists has the join attempt ARGV[3] given up the
-- same way: commit.lua refuses a commit carrying that token. The set lives as
-- long as the race at its present version (a later commit makes any older one
-- a conflict anyway), and the mark's TTL at least.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local h = redis.call('HGETALL', KEYS[1])
if #h == 0 then
  if #KEYS > 1 then redis.call('SET', KEYS[2], '1', 'PX', ARGV[2]) end
  return {now}
end
if #KEYS > 2 then
  redis.call('SADD', KEYS[3], ARGV[3])
  redis.call('PEXPIRE', KEYS[3], math.max(redis.call('PTTL', KEYS[1]), tonumber(ARGV[2])))
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
