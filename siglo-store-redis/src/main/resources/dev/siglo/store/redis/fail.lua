-- Releases KEYS[1] if ARGV[1] holds its claim: the record acts as absent (state 'r') but keeps its
-- delivery and takeover counts ('d', 'x') for the next claim; it expires after ARGV[2] ms (the GC
-- grace). Answers 1, or 0 when not held.
local h = redis.call('HMGET', KEYS[1], 's', 't')
if h[1] ~= 'p' or h[2] ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 's', 'r', 't', '', 'l', '', 'f', '')
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
