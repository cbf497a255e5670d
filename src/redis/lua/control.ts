import { EPILOGUE, PRELUDE } from './prelude.js';

/**
 * Fleet-wide control, applied atomically and announced on the notice channel from inside the
 * script, so that no process can see the change without the announcement having been sent.
 *
 * Script ARGV after the header: 'pause', duration µs | 'resume' | 'rate', scope j, rates JSON |
 * 'template', rates JSON.
 * - pause: no grant before now + duration (a longer pause in force is kept).
 * - resume: lifts the pause (never a quarantine).
 * - rate: the scope's rates in force from now. Sliding window: the logs are kept, so the new
 *   limits apply to grants already made (grants the old, shorter, longest interval had already
 *   trimmed stay forgotten, as in the local policy). Token bucket: as AllOfPolicies.setRates,
 *   the same number of rates keeps each bucket (resynced, stored permits rescaled); another number
 *   starts empty buckets, not before the old next free time (a fresh bucket must not hand out
 *   what a pre-consumed request already took).
 * - template: the keys' template from now, for every key without rates of its own (a key's token
 *   bucket is kept, its stored permits cut to the new maximum when next read).
 * Reply: the header.
 */
export const CONTROL_SCRIPT = `${PRELUDE}
local op = ARGV[HEADER + 1]
local epochJson = cjson.encode(e)
if op == 'pause' then
  local untilTime = now + tonumber(ARGV[HEADER + 2])
  if untilTime > p then p = untilTime end
  redis.call('PUBLISH', noticeChannel,
    '{"kind":"pause","epoch":' .. epochJson .. ',"id":"' .. int(p) .. '","forUs":' .. int(p - now) .. '}')
elseif op == 'resume' then
  p = 0
  redis.call('PUBLISH', noticeChannel, '{"kind":"resume","epoch":' .. epochJson .. '}')
elseif op == 'rate' or op == 'template' then
  -- 'rate': scope j's own rates (overall, a channel, or a key: kept in the key's hash while it lives).
  -- 'template': the keys' template, for every key without rates of its own, from its next grant.
  local j, json
  if op == 'rate' then j = tonumber(ARGV[HEADER + 2]); json = ARGV[HEADER + 3] else json = ARGV[HEADER + 2] end
  local newRates = cjson.decode(json)
  if op == 'rate' and declared.strategy == 'token-bucket' then
    local oldRates = scopeRates(j)
    local sk = stateKey(j)
    local function field(i) return stateField(j, 'b' .. i) end
    local function maxOf(rate)
      if declared.maxBurst == cjson.null or declared.maxBurst == nil then return rate[1] end
      return declared.maxBurst
    end
    local states = {}
    local latestFree = now
    for i, rate in ipairs(oldRates) do
      local stored = redis.call('HGET', sk, field(i))
      local nextFree, permits = c, 0
      -- A key's bucket that does not exist yet would start empty at its first grant.
      if scopeIsKey(j) then nextFree = now end
      if stored then
        local a, b = string.match(stored, '^(%S+) (%S+)$')
        nextFree = tonumber(a); permits = tonumber(b)
      end
      if now > nextFree then
        permits = math.min(maxOf(rate), permits + (now - nextFree) / (rate[2] / rate[1]))
        nextFree = now
      end
      if nextFree > latestFree then latestFree = nextFree end
      states[i] = { nextFree = nextFree, stored = permits, max = maxOf(rate) }
      redis.call('HDEL', sk, field(i))
    end
    for i, rate in ipairs(newRates) do
      local state = states[i]
      if #newRates ~= #oldRates or not state then
        state = { nextFree = latestFree, stored = 0, max = 0 }
      end
      local stored = 0
      if state.max > 0 then stored = state.stored * maxOf(rate) / state.max end
      redis.call('HSET', sk, field(i), fmt(state.nextFree) .. ' ' .. fmt(stored))
    end
  end
  local scopeJson = ''
  if op == 'template' then
    redis.call('HSET', cfgKey, 'rk', json)
    templateCache = newRates
    scopeJson = ',"channel":null,"template":true'
  else
    redis.call('HSET', stateKey(j), ratesField(j), json)
    scopeRatesCache[j] = newRates
    if j == 0 then scopeJson = ',"channel":null'
    elseif scopeIsKey(j) then
      scopeJson = ',"channel":null,"key":' .. cjson.encode(scopeName(j))
      -- A key's own interval may be longer than any other: the state is kept long enough for it too.
      local own = longestInterval(newRates, 0)
      if own > tonumber(redis.call('HGET', cfgKey, 'Lk') or '0') then redis.call('HSET', cfgKey, 'Lk', int(own)) end
    else scopeJson = ',"channel":' .. cjson.encode(scopeName(j)) end
  end
  L = longestInterval(scopeRates(0), 0)
  for _, entry in ipairs(declared.channels) do
    local stored = redis.call('HGET', cfgKey, 'r:' .. entry[1])
    if stored then L = longestInterval(cjson.decode(stored), L) else L = longestInterval(entry[2], L) end
  end
  if declared.keys then L = longestInterval(templateRates(), L) end
  local keyLongest = tonumber(redis.call('HGET', cfgKey, 'Lk') or '0')
  if keyLongest > L then L = keyLongest end
  v = v + 1
  redis.call('PUBLISH', noticeChannel, '{"kind":"rates","epoch":' .. epochJson .. ',"version":' .. v ..
    scopeJson .. ',"rates":' .. json .. '}')
end
${EPILOGUE}
return reply
`;
