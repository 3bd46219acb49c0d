-- Was a request pushed (a `RESERVE` whose reply was lost)? It is found where it went since, in
-- one step (a worker moves it on meanwhile): waiting, popped, or its bot recorded by the worker
-- that took it. KEYS: requests, taking, bots. ARGV: request json, its bot's player id -> 1 | 0
if redis.call('LPOS', KEYS[1], ARGV[1]) or redis.call('LPOS', KEYS[2], ARGV[1]) then return 1 end
return redis.call('HEXISTS', KEYS[3], ARGV[2])
