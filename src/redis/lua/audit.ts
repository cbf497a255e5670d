/**
 * The fleet audit's read (fleet-audit.ts): one atomic look at what the fleet granted, changing nothing.
 * KEYS: [1] the configuration hash, [2] the audit's own hash (its state, written by AUDIT_COMMIT_SCRIPT).
 * ARGV: [1] the test time in µs ('' unless the stored configuration says test). The keys whose logs it
 * reads: those the keys' index names since the last read (the audit's 'ra'), and those with grants the
 * audit saw and has not counted yet (its 'pk').
 * The logs, the give-backs' record and the keys' index (lua/audit-trail.ts) are named from KEYS[1]: they
 * share its hash tag, so they live in its Cluster slot.
 * Reply: { now µs, L µs, the stored configuration JSON, the audit's version, its state JSON ('' none),
 * the give-backs { member, µs, ... }, then per scope { id ('' overall, 'c' .. channel, 'k' .. key),
 * rates JSON in force, { member, running total, ... } oldest first (with rates in dimensions, each
 * dimension's log in turn: a grant may be in several) } }. An empty reply: no limiter yet.
 */
export const AUDIT_READ_SCRIPT = `
local cfgKey = KEYS[1]
local f = redis.call('HMGET', cfgKey, 'd', 'now', 'L', 'r', 'rk')
if not f[1] then return {} end
local declared = cjson.decode(f[1])
local now
if declared.test then
  now = tonumber(ARGV[1])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
if f[2] and tonumber(f[2]) > now then now = tonumber(f[2]) end
local function int(x) return string.format('%.0f', x) end
local base = string.sub(cfgKey, 1, #cfgKey - 3)
local template = f[5] or (declared.keys and cjson.encode(declared.keys)) or ''

local reply = { int(now), f[3], f[1], redis.call('HGET', KEYS[2], 'v') or '0', redis.call('HGET', KEYS[2], 's') or '' }
reply[6] = redis.call('ZRANGE', base .. 'gone', 0, -1, 'WITHSCORES')
-- Rates in dimensions: a scope's grants are in one log per dimension (lua/prelude.ts logKey), read together.
local dimCount = 0
if declared.dims then dimCount = #declared.dims end
local function scope(id, log, rates)
  local grants = redis.call('ZRANGE', log, 0, -1, 'WITHSCORES')
  for d = 1, dimCount do
    local more = redis.call('ZRANGE', base .. 'd' .. d .. ':' .. string.sub(log, #base + 1), 0, -1, 'WITHSCORES')
    for _, item in ipairs(more) do grants[#grants + 1] = item end
  end
  reply[#reply + 1] = { id, rates, grants }
end
scope('', base .. 'all', f[4] or cjson.encode(declared.rates))
for _, entry in ipairs(declared.channels) do
  local name = entry[1]
  scope('c' .. name, base .. 'c:' .. name, redis.call('HGET', cfgKey, 'r:' .. name) or cjson.encode(entry[2]))
end
if declared.keys then
  local seen = {}
  local names = redis.call('ZRANGEBYSCORE', base .. 'ki', redis.call('HGET', KEYS[2], 'ra') or '-inf', '+inf')
  for _, name in ipairs(cjson.decode(redis.call('HGET', KEYS[2], 'pk') or '[]')) do names[#names + 1] = name end
  for _, name in ipairs(names) do
    if not seen[name] then
      seen[name] = true
      scope('k' .. name, base .. 'k:' .. name, redis.call('HGET', base .. 'ks:' .. name, 'r') or template)
    end
  end
end
return reply
`;

/**
 * Stores the audit's state if no other reader stored one since this one read it (its version), so two
 * processes auditing at once never count a grant twice. KEYS: [1] the audit's hash. ARGV: [1] the version
 * read, [2] the new state JSON, [3] the keys with grants not yet counted (JSON),
 * [4] the Redis time of the read (µs), [5] the state's life in ms. Reply: 1 stored, 0 another reader came first.
 */
export const AUDIT_COMMIT_SCRIPT = `
local version = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if version ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', version + 1, 's', ARGV[2], 'pk', ARGV[3], 'ra', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;
