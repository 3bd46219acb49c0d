-- A worker's report of its free slots, and the request it has just taken (if any) out of
-- `taking`, in one step. KEYS: slots, taking. ARGV: worker, free, now ms, request json or ''.
if ARGV[4] ~= '' then redis.call('LREM', KEYS[2], 1, ARGV[4]) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[3])
return 1
