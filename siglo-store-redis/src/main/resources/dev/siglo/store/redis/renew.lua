-- Extends the lease of every key of KEYS in one call (a single renewal is a batch of one).
-- ARGV[1]: now in ms, or '' to use the server clock; ARGV[2]: GC grace in ms;
-- then per key i: ARGV[2*i+1] token, ARGV[2*i+2] lease in ms.
-- Answers per key: the new lease end, or 0 when the token does not hold the claim.
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local grace = tonumber(ARGV[2])
local answers = {}
for i, key in ipairs(KEYS) do
  local token, lease = ARGV[2 * i + 1], tonumber(ARGV[2 * i + 2])
  local h = redis.call('HMGET', key, 's', 't')
  if h[1] ~= 'p' or h[2] ~= token then
    answers[i] = 0
  else
    local leaseEnd = string.format('%.0f', now + lease)
    redis.call('HSET', key, 'l', leaseEnd)
    redis.call('PEXPIRE', key, lease + grace)
    answers[i] = leaseEnd
  end
end
return answers
