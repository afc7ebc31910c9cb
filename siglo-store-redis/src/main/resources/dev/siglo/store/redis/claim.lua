-- Claims every key of KEYS in one call (a single claim is a batch of one).
-- ARGV[1]: now in ms, or '' to use the server clock; ARGV[2]: GC grace in ms;
-- ARGV[3]: the store's key prefix, kept on the record so clear() removes only its own store's;
-- then per key i: ARGV[4*i] token, ARGV[4*i+1] fingerprint ('' = none), ARGV[4*i+2] lease in ms,
-- ARGV[4*i+3]: '1' when the claim starts a new delivery. A released record (state 'r') acts as
-- absent; it and an abandoned claim taken over carry their counts 'd' (deliveries) and 'x'
-- (takeovers) on.
-- Answers per key: {'K', leaseEnd, takeover, deliveries, takeovers} claimed, {'C', outcome} completed,
-- {'P', leaseEnd} in progress, {'R'} key reused with another fingerprint.
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local grace = tonumber(ARGV[2])
local prefix = ARGV[3]
local answers = {}
for i, key in ipairs(KEYS) do
  local token, fingerprint = ARGV[4 * i], ARGV[4 * i + 1]
  local lease, counts = tonumber(ARGV[4 * i + 2]), ARGV[4 * i + 3] == '1'
  local h = redis.call('HMGET', key, 's', 'f', 'l', 'r', 'o', 'd', 'x')
  local state = h[1]
  local answer = nil
  if state and state ~= 'r' then
    local live
    if state == 'p' then live = now < tonumber(h[3]) else live = now < tonumber(h[4]) end
    if live then
      local stored = h[2] or ''
      if fingerprint ~= '' and stored ~= '' and stored ~= fingerprint then
        answer = {'R'}
      elseif state == 'c' then
        answer = {'C', h[5]}
      else
        answer = {'P', h[3]}
      end
    end
  end
  if not answer then
    local leaseEnd = string.format('%.0f', now + lease)
    local deliveries, takeovers = 0, 0
    if state == 'p' or state == 'r' then
      deliveries, takeovers = tonumber(h[6] or '0'), tonumber(h[7] or '0')
    end
    if counts then deliveries = deliveries + 1 end
    if state == 'p' then takeovers = takeovers + 1 end
    if state then redis.call('DEL', key) end
    redis.call('HSET', key, 's', 'p', 't', token, 'f', fingerprint, 'l', leaseEnd, 'p', prefix,
      'd', deliveries, 'x', takeovers)
    redis.call('PEXPIRE', key, lease + grace)
    local takeover = '0'
    if state == 'p' then takeover = '1' end
    answer = {'K', leaseEnd, takeover, math.max(deliveries, 1), takeovers}
  end
  answers[i] = answer
end
return answers
