-- Releases KEYS[1] if ARGV[1] holds its claim and forgets the record with its counts. Answers 1, or 0 when not held.
local h = redis.call('HMGET', KEYS[1], 's', 't')
if h[1] ~= 'p' or h[2] ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
return 1
