-- One finished race in a player's recent races (server/storage/recent.py): its entry, or
-- its rating change. Idempotent: the race id is the sorted set's member, so a race written
-- again (the end's follow-up done twice after a crash, a rating applied again) is listed
-- once, its field overwritten with the same value.
-- KEYS: 1 zset race id -> end ms   2 hash of the entries (both in the player's slot)
-- ARGV: 1 race id   2 end ms   3 field suffix ("" the entry, ":r" the rating change)
--       4 value   5 cap (races kept)   6 TTL ms
-- The oldest races beyond the cap go, with both their fields. The TTL is never shortened:
-- an account's longer one stays when a write comes with a guest's.
-- Returns the number of races listed.
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1] .. ARGV[3], ARGV[4])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[5])
if over > 0 then
  local old = redis.call('ZRANGE', KEYS[1], 0, over - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1)
  for _, rid in ipairs(old) do
    redis.call('HDEL', KEYS[2], rid, rid .. ':r')
  end
end
local ttl = tonumber(ARGV[6])
for k = 1, 2 do
  if redis.call('PTTL', KEYS[k]) < ttl then
    redis.call('PEXPIRE', KEYS[k], ttl)
  end
end
return redis.call('ZCARD', KEYS[1])
