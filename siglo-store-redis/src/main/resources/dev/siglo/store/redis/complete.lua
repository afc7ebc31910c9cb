-- Completes every key of KEYS in one call (a single completion is a batch of one).
-- ARGV[1]: now in ms, or '' to use the server clock; ARGV[2]: GC grace in ms;
-- then per key i: ARGV[3*i] token, ARGV[3*i+1] encoded outcome, ARGV[3*i+2] retention in ms.
-- Answers per key: 1 completed, or 0 when the token does not hold the claim.
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local grace = tonumber(ARGV[2])
local answers = {}
for i, key in ipairs(KEYS) do
  local token, outcome, retention = ARGV[3 * i], ARGV[3 * i + 1], tonumber(ARGV[3 * i + 2])
  local h = redis.call('HMGET', key, 's', 't')
  if h[1] ~= 'p' or h[2] ~= token then
    answers[i] = 0
  else
    -- token and lease are blanked in the same write (a completed record has neither)
    redis.call('HSET', key, 's', 'c', 'o', outcome, 'r', string.format('%.0f', now + retention),
      't', '', 'l', '')
    redis.call('PEXPIRE', key, retention + grace)
    answers[i] = 1
  end
end
return answers
