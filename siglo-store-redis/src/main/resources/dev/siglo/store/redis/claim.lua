-- Claims every key of KEYS in one call (a single claim is a batch of one).
-- ARGV[1]: now in ms, or '' to use the server clock; ARGV[2]: GC grace in ms;
-- ARGV[3]: the store's key prefix, kept on the record so clear() removes only its own store's;
-- then per key i: ARGV[3*i+1] token, ARGV[3*i+2] fingerprint ('' = none), ARGV[3*i+3] lease in ms.
-- Answers per key: {'K', leaseEnd, takeover} claimed, {'C', outcome} completed,
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
  local token, fingerprint, lease = ARGV[3 * i + 1], ARGV[3 * i + 2], tonumber(ARGV[3 * i + 3])
  local h = redis.call('HMGET', key, 's', 'f', 'l', 'r', 'o')
  local state = h[1]
  local answer = nil
  if state then
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
    if state then redis.call('DEL', key) end
    redis.call('HSET', key, 's', 'p', 't', token, 'f', fingerprint, 'l', leaseEnd, 'p', prefix)
    redis.call('PEXPIRE', key, lease + grace)
    if state == 'p' then answer = {'K', leaseEnd, '1'} else answer = {'K', leaseEnd, '0'} end
  end
  answers[i] = answer
end
return answers
