-- Reads the outcome of KEYS[1] if completed and within retention. ARGV[1]: now in ms or ''.
local h = redis.call('HMGET', KEYS[1], 's', 'r', 'o')
if h[1] ~= 'c' then
  return false
end
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
if now < tonumber(h[2]) then
  return h[3]
end
return false
