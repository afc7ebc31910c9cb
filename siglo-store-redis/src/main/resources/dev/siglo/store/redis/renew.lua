-- Extends the lease of KEYS[1] if ARGV[2] holds its claim. ARGV[1]: now in ms or '';
-- ARGV[3]: lease in ms; ARGV[4]: GC grace in ms. Answers the new lease end, or false.
local h = redis.call('HMGET', KEYS[1], 's', 't')
if h[1] ~= 'p' or h[2] ~= ARGV[2] then
  return false
end
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local leaseEnd = string.format('%.0f', now + tonumber(ARGV[3]))
redis.call('HSET', KEYS[1], 'l', leaseEnd)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + tonumber(ARGV[4]))
return leaseEnd
