-- Deletes the records of KEYS (one SCAN page under the store's prefix) that belong to the store
-- whose prefix is ARGV[1]: a store with a longer prefix that starts with it (app1: and app1:2:)
-- matches the same SCAN pattern, and its records keep their own prefix in field 'p'. Records
-- written before the field existed have none and are taken as this store's. Answers the count.
local deleted = 0
for _, key in ipairs(KEYS) do
  local owner = redis.call('HGET', key, 'p')
  if owner == false or owner == ARGV[1] then
    redis.call('UNLINK', key)
    deleted = deleted + 1
  end
end
return deleted
