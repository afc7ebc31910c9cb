-- Completes KEYS[1] if ARGV[2] holds its claim. ARGV[1]: now in ms or ''; ARGV[3]: encoded
-- outcome; ARGV[4]: retention in ms; ARGV[5]: GC grace in ms. Answers 1, or 0 when not held.
local h = redis.call('HMGET', KEYS[1], 's', 't')
if h[1] ~= 'p' or h[2] ~= ARGV[2] then
  return 0
end
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local retention = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 's', 'c', 'o', ARGV[3], 'r', string.format('%.0f', now + retention))
redis.call('HDEL', KEYS[1], 't', 'l')
redis.call('PEXPIRE', KEYS[1], retention + tonumber(ARGV[5]))
return 1
