-- Push requests whatever the free slots (a rematch's bot), once the queue's old end is
-- trimmed of the requests no worker would play (bot_trim.lua); with none, only the trim
-- (the servers' sweep). KEYS: requests. ARGV: request json... -> how many were dropped
local dropped = trim(KEYS[1])
for i = 1, #ARGV do redis.call('LPUSH', KEYS[1], ARGV[i]) end
return dropped
