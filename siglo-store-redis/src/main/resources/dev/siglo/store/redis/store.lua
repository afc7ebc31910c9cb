-- Every state change of the Redis store's records, one script so that all share one reader and
-- one writer of the record format.
--
-- A record is one string: s|token|lease|retention|d|x|#f|#p|<fingerprint><prefix><outcome>
--   s: 'p' claimed, 'c' completed, 'r' released (acts as absent, keeps its counts);
--   token: the claim's owner token (claimed records only);
--   lease: the lease end in ms, or '~<grace>' for a claim the client wrote with SET NX PX under the
--     server clock: then the lease ends <grace> ms before the key expires;
--   retention: the retention end in ms (completed records only), or '~<grace>' for a completion the
--     client wrote natively under the server clock: then the retention ends <grace> ms before the
--     key expires;
--   d, x: deliveries and takeovers counted, carried across releases and takeovers;
--   #f, #p: the byte lengths of the fingerprint and of the store's key prefix (kept so that clear()
--     removes only its own store's records), then the outcome to the end of the string.
-- Records written before this format are hashes (fields s t f l r o d x p); they are read as they
-- are and written in the new format by their next change, or kept as hashes when ARGV[5] is 'h'
-- (a store sharing its records with processes that read only hashes).
--
-- ARGV[1]: the operation; ARGV[2]: now in ms, or '' for the server clock; ARGV[3]: GC grace in ms
-- (a record outlives its lease or retention by it); ARGV[4]: the store's key prefix; ARGV[5]: 'h'
-- to write hashes, else 'c'; then the operation's arguments per key (see each operation).
local op, grace, prefix, hashes = ARGV[1], tonumber(ARGV[3]), ARGV[4], ARGV[5] == 'h'
local clock = tonumber(ARGV[2])

local function now()
  if not clock then
    local t = redis.call('TIME')
    clock = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return clock
end

local function ms(n)
  return string.format('%.0f', n)
end

local function readHash(key)
  local h = redis.pcall('HMGET', key, 's', 't', 'f', 'l', 'r', 'o', 'd', 'x', 'p')
  if h.err or not h[1] then
    return h.err and h or nil
  end
  return {s = h[1], t = h[2] or '', f = h[3] or '', l = h[4] or '', r = h[5] or '',
    o = h[6] or '', d = tonumber(h[7] or '0'), x = tonumber(h[8] or '0'), p = h[9], hash = true}
end

-- the record at key, nil when there is none, or an error reply; a store writing hashes looks for
-- a hash first, any other for a string first
local function read(key)
  if hashes then
    local rec = readHash(key)
    if not (rec and rec.err and string.find(rec.err, 'WRONGTYPE', 1, true)) then
      return rec
    end
  end
  local v = redis.pcall('GET', key)
  if not v then
    return nil
  end
  if type(v) == 'table' then
    if not string.find(v.err or '', 'WRONGTYPE', 1, true) then
      return redis.error_reply(v.err)
    end
    return readHash(key)
  end
  local s, t, l, r, d, x, nf, np, at =
    string.match(v, '^(%a)|([^|]*)|([^|]*)|([^|]*)|(%d+)|(%d+)|(%d+)|(%d+)|()')
  if not s then
    return redis.error_reply('siglo: unreadable record at ' .. key)
  end
  nf, np = tonumber(nf), tonumber(np)
  return {s = s, t = t, l = l, r = r, d = tonumber(d), x = tonumber(x),
    f = string.sub(v, at, at + nf - 1), p = string.sub(v, at + nf, at + nf + np - 1),
    o = string.sub(v, at + nf + np)}
end

-- writes rec over old (what read() found: nil, a hash or a string); a hash overwrites every field,
-- so only a string in its place is deleted first
local function write(key, rec, px, old)
  if hashes then
    if old and not old.hash then
      redis.call('DEL', key)
    end
    redis.call('HSET', key, 's', rec.s, 't', rec.t, 'f', rec.f, 'l', rec.l, 'r', rec.r,
      'o', rec.o, 'p', prefix, 'd', rec.d, 'x', rec.x)
    redis.call('PEXPIRE', key, px)
  else
    redis.call('SET', key, rec.s .. '|' .. rec.t .. '|' .. rec.l .. '|' .. rec.r .. '|' .. rec.d
      .. '|' .. rec.x .. '|' .. #rec.f .. '|' .. #prefix .. '|' .. rec.f .. prefix .. rec.o,
      'PX', px)
  end
end

-- a lease or retention end of the record at key: '~<grace>' is <grace> ms before the key expires
local function endOf(key, field)
  if string.sub(field, 1, 1) == '~' then
    return now() + redis.call('PTTL', key) - tonumber(string.sub(field, 2))
  end
  return tonumber(field)
end

-- the record of key when token holds its claim, else nil
local function held(key, token)
  local rec = read(key)
  if rec and rec.err then
    return rec
  end
  if rec and rec.s == 'p' and rec.t == token then
    return rec
  end
  return nil
end

local answers = {}

if op == 'claim' then
  -- per key i: ARGV[2+4i] token, ARGV[3+4i] fingerprint ('' = none), ARGV[4+4i] lease in ms,
  -- ARGV[5+4i] '1' when the claim starts a new delivery. Answers per key: {'K', leaseEnd,
  -- takeover, deliveries, takeovers} claimed, {'C', outcome} completed, {'P', leaseEnd} in
  -- progress, {'R'} key reused with another fingerprint.
  for i, key in ipairs(KEYS) do
    local token, fingerprint = ARGV[2 + 4 * i], ARGV[3 + 4 * i]
    local lease, counts = tonumber(ARGV[4 + 4 * i]), ARGV[5 + 4 * i] == '1'
    local rec = read(key)
    if rec and rec.err then
      return rec
    end
    local answer = nil
    if rec and rec.s ~= 'r' then
      local ends, live
      if rec.s == 'p' then
        ends = endOf(key, rec.l)
        live = now() < ends
      else
        live = now() < endOf(key, rec.r)
      end
      if live then
        if fingerprint ~= '' and rec.f ~= '' and rec.f ~= fingerprint then
          answer = {'R'}
        elseif rec.s == 'c' then
          answer = {'C', rec.o}
        else
          answer = {'P', ms(ends)}
        end
      end
    end
    if not answer then
      local deliveries, takeovers = 0, 0
      if rec and rec.s ~= 'c' then
        deliveries, takeovers = rec.d, rec.x
      end
      if counts then
        deliveries = deliveries + 1
      end
      local takeover = '0'
      if rec and rec.s == 'p' then
        takeover, takeovers = '1', takeovers + 1
      end
      local ends = ms(now() + lease)
      write(key, {s = 'p', t = token, f = fingerprint, l = ends, r = '', o = '', d = deliveries,
        x = takeovers}, lease + grace, rec)
      answer = {'K', ends, takeover, math.max(deliveries, 1), takeovers}
    end
    answers[i] = answer
  end
elseif op == 'complete' then
  -- per key i: ARGV[3+3i] token, ARGV[4+3i] encoded outcome, ARGV[5+3i] retention in ms.
  -- Answers per key: 1 completed, or 0 when the token does not hold the claim.
  -- The common case, a string record claimed by the token, is read and written in place: the
  -- fingerprint is cut out of it and nothing else is parsed (a token with a '|' is never this
  -- store's, and goes the long way, which compares it whole). Every other record goes through
  -- read() and write().
  local tail = '|' .. #prefix .. '|'
  for i, key in ipairs(KEYS) do
    local token, outcome, retention = ARGV[3 + 3 * i], ARGV[4 + 3 * i], tonumber(ARGV[5 + 3 * i])
    local v = hashes or redis.pcall('GET', key) -- a store writing hashes reads the long way
    answers[i] = 0
    if type(v) == 'string' and string.sub(v, 1, #token + 3) == 'p|' .. token .. '|'
        and not string.find(token, '|', 1, true) then
      local nf, at = string.match(v, '^[^|]*|[^|]*|%d+|%d+|(%d+)|%d+|()', #token + 4)
      if not nf then
        return redis.error_reply('siglo: unreadable record at ' .. key)
      end
      redis.call('SET', key, 'c|||' .. ms(now() + retention) .. '|0|0|' .. nf .. tail
        .. string.sub(v, at, at + tonumber(nf) - 1) .. prefix .. outcome, 'PX', retention + grace)
      answers[i] = 1
    elseif v then
      local rec = held(key, token)
      if rec and rec.err then
        return rec
      end
      if rec then
        write(key, {s = 'c', t = '', f = rec.f, l = '', r = ms(now() + retention), o = outcome,
          d = 0, x = 0}, retention + grace, rec)
        answers[i] = 1
      end
    end
  end
elseif op == 'renew' then
  -- per key i: ARGV[4+2i] token, ARGV[5+2i] lease in ms.
  -- Answers per key: the new lease end, or 0 when the token does not hold the claim.
  for i, key in ipairs(KEYS) do
    local lease = tonumber(ARGV[5 + 2 * i])
    local rec = held(key, ARGV[4 + 2 * i])
    if rec and rec.err then
      return rec
    end
    answers[i] = 0
    if rec then
      rec.l = ms(now() + lease)
      write(key, rec, lease + grace, rec)
      answers[i] = rec.l
    end
  end
elseif op == 'fail' or op == 'forget' then
  -- ARGV[6]: the token. 'fail' releases the claim: the record acts as absent but keeps its
  -- counts for the next claim, and expires after the grace; 'forget' deletes it with its counts.
  -- Answers 1, or 0 when the token does not hold the claim.
  local rec = held(KEYS[1], ARGV[6])
  if rec and rec.err then
    return rec
  end
  if not rec then
    return 0
  end
  if op == 'forget' then
    redis.call('DEL', KEYS[1])
  else
    write(KEYS[1], {s = 'r', t = '', f = '', l = '', r = '', o = '', d = rec.d, x = rec.x}, grace,
      rec)
  end
  return 1
elseif op == 'get' then
  -- Answers the outcome of KEYS[1] if completed and within retention, else nil.
  local rec = read(KEYS[1])
  if rec and rec.err then
    return rec
  end
  if rec and rec.s == 'c' and now() < endOf(KEYS[1], rec.r) then
    return rec.o
  end
  return false
elseif op == 'inspect' then
  -- Answers KEYS[1]'s record for an operator, expired or not: {state, token, lease end,
  -- retention end, deliveries, takeovers, outcome, now} (ends resolved to ms, '' when none),
  -- or nil when there is none.
  local rec = read(KEYS[1])
  if rec and rec.err then
    return rec
  end
  if not rec then
    return false
  end
  local lease, retention = '', ''
  if rec.s == 'p' and rec.l ~= '' then
    lease = ms(endOf(KEYS[1], rec.l))
  elseif rec.s == 'c' and rec.r ~= '' then
    retention = ms(endOf(KEYS[1], rec.r))
  end
  return {rec.s, rec.t, lease, retention, tostring(rec.d), tostring(rec.x), rec.o, ms(now())}
elseif op == 'remove' then
  -- An operator's delete of KEYS[1] unless a live claim holds it. Answers 1 deleted, 0 absent,
  -- -1 held.
  local rec = read(KEYS[1])
  if rec and rec.err then
    return rec
  end
  if not rec then
    return 0
  end
  if rec.s == 'p' and now() < endOf(KEYS[1], rec.l) then
    return -1
  end
  redis.call('DEL', KEYS[1])
  return 1
elseif op == 'clear' then
  -- Deletes the records of KEYS (one SCAN page under the prefix) that belong to this store: a
  -- store whose prefix starts with this one's (app1: and app1:2:) matches the same SCAN pattern,
  -- and its records keep their own prefix. Hashes without one are taken as this store's.
  local deleted = 0
  for _, key in ipairs(KEYS) do
    local rec = read(key)
    if rec and rec.err then
      return rec
    end
    if rec and (not rec.p or rec.p == prefix) then
      redis.call('UNLINK', key)
      deleted = deleted + 1
    end
  end
  return deleted
else
  return redis.error_reply('siglo: unknown operation ' .. tostring(op))
end
return answers
