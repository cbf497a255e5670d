/**
 * Weighted fairness across the fleet ('fairlines', lua/reserve.ts): start-time fair queueing kept in
 * Redis, so that the shares are the fleet's whatever process each tenant's messages reach.
 *
 * Each line (a channel or key; '' for none) has a finish tag beside its other state (field 'ft', with
 * the time it last moved, expiring with it) and the limiter a virtual time (configuration field 'vt',
 * the largest start granted). A message of line j with cost c and weight w starts at its line's tag;
 * granted, the tag moves on by c / w. A line with no grant within the overall rates' longest interval
 * starts at the virtual time instead (back after a pause: no credit saved up), and keeps that start
 * while it waits (it does not chase the virtual time that the others' grants move on).
 *
 * The store sees only the messages asked for, so it remembers the lines that asked and were told to
 * wait (no room: kind 1; or this rule: kind 5), at their start tags in a sorted set, each until a
 * moment past the retry it was told (FAIR_SLACK): a line whose processes stop asking is forgotten
 * then, so its place never holds the room for long. A line granted stays remembered, at its new
 * start, until then (other processes may hold more of it). A message is granted only if no other
 * remembered line starts before it: the room goes by start tag, as weighted fair queueing sends, and
 * a line ahead of its share is told to come back as the first line behind it is due back. For this to
 * see every line that waits, the processes tell the store of a line as soon as it is backlogged, and
 * ask for the messages behind a head that holds its grant (src/redis/fair-asks.ts); and grants go at
 * most a tenth of the overall rates' shortest interval ahead (fairAhead). A line's own rates hold it
 * only where they bind: past the time the overall room lets its grant go (its window counted at now, a
 * key rate at the overall one held a line a window out of two: 1:4 shared 50/50); held, it is told to
 * come back as its room can be reserved, and waits for that room only (fairHeldByOwnRates). Measured
 * (virtual time, the real Redis): every backlogged key within 1 + twice the largest cost of `w / Σw` in
 * every window, with 2 to 4 processes, keys sharded or spread, the keys' own rates from just above their
 * share to above the overall rate (test/redis/weighted-fleet.property.test.ts).
 *
 * Costs: O(log lines waiting) per message (ZRANGE of the five smallest, ZADD, ZREM); memory, two
 * sorted-set entries per line waiting, and a hash field per line held by its own rates, forgotten past
 * its retry, and a tag per line with grants.
 */
// The Lua's comments are the TypeScript's, between its parts: only the code is shipped.
export const FAIR_TAGS = [
  `
local fairWaitKey = logBase .. 'fw'
local fairUntilKey = logBase .. 'fwx'
local fairHeldKey = logBase .. 'fwh'`,
  // Past the retry a waiting line was told, how long the store keeps its place (µs): a process on time
  // is back within its round trip; one later than this leaves the room to the others.
  `local FAIR_SLACK = 10000
local fairVirtual = nil
local fairTags = {}
local fairDirty = {}
local fairPurged = false
local fairWaitsChanged = false
local function fairMember(j) if j > 0 then return ARGV[8 + j] end return '' end
local function fairWeight(text)
  local w = tonumber(text)
  if w == nil or w ~= w or w <= 0 or w == math.huge or 1 / w == math.huge then return 1 end
  return w
end`,
  // What a message weighs for fairness: its cost, or with dimensions its largest one (as in the process).
  `local function fairCost(cost)
  if type(cost) ~= 'table' then return cost end
  local largest = 0
  for _, one in pairs(cost) do if one > largest then largest = one end end
  return largest
end
local function virtualNow()
  if fairVirtual == nil then fairVirtual = tonumber(redis.call('HGET', cfgKey, 'vt') or '0') or 0 end
  return fairVirtual
end`,
  // Where line j's next message starts: its tag while it has had a grant within the overall rates'
  // longest interval ('r', recent: backlogged, perhaps silent behind grants its process holds, so what
  // it is owed stays owed), else the virtual time if that is later (back after a pause: no credit); and
  // the virtual time too if later while its own rates held it ('h', written ' h' after the tag: what the
  // others obtained meanwhile is not owed to it).
  `local fairRecent = longestInterval(scopeRates(0), 0)
local function fairStart(j)
  local tag = fairTags[j]
  if tag == nil then
    local text = redis.call('HGET', stateKey(j), stateField(j, 'ft'))
    local saved, at, held = 0, 0, ''
    if text then saved, at, held = string.match(text, '^(%S+) (%S+) ?(%S*)$') end
    tag = tonumber(saved) or 0
    fairTags[j] = tag
    if text and (tonumber(at) or 0) + fairRecent > now then fairTags[j .. 'r'] = true end
    if held == 'h' then fairTags[j .. 'h'] = true end
  end
  local v = virtualNow()
  if tag > v or (fairTags[j .. 'r'] and not fairTags[j .. 'h']) then return tag end
  return v
end`,
  // The waiting lines whose time has passed are forgotten, each once: O(1) amortised.
  `local function fairPurge()
  if fairPurged then return end
  fairPurged = true
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', fairUntilKey, '-inf', now)) do
    redis.call('ZREM', fairWaitKey, member)
    redis.call('ZREM', fairUntilKey, member)
    redis.call('HDEL', fairHeldKey, member)
  end
end`,
  // Another waiting line that starts before s and competes for room at `at`: when to ask again (µs),
  // else nil. Its due time (its retry), or, when that has come and it is not back yet, the end of its
  // place: it is forgotten then, so a line is told to wait for it at most twice. A line its own rates
  // hold (fwh: from when they let it in) competes only for room from then on, so the first few waiting
  // lines are looked at. One whose due time was lost (evicted) is forgotten.
  `local function fairBlockedUntil(member, s, at)
  fairPurge()
  local head = redis.call('ZRANGE', fairWaitKey, 0, 4, 'WITHSCORES')
  for i = 1, #head, 2 do
    if head[i] ~= member then
      if tonumber(head[i + 1]) >= s then return nil end
      local keep = tonumber(redis.call('ZSCORE', fairUntilKey, head[i]) or '')
      if keep == nil then
        redis.call('ZREM', fairWaitKey, head[i])
        return nil
      end
      local from = tonumber(redis.call('HGET', fairHeldKey, head[i]) or '')
      if from == nil or from <= at then
        if keep - FAIR_SLACK <= now then return keep end
        return keep - FAIR_SLACK
      end
    end
  end
  return nil
end`,
  // Line j waits at start tag s, due back at `back` (µs), remembered until a little past it; its start
  // is kept: while it waits it does not chase the virtual time that the others' grants move on.
  `local function fairWaits(j, s, back)
  if not fairTags[j .. 'r'] or fairTags[j .. 'h'] then
    fairTags[j] = s
    fairTags[j .. 'r'] = true
    fairTags[j .. 'h'] = nil
    fairDirty[j] = true
  end
  local member = fairMember(j)
  local keep = back + FAIR_SLACK
  local known = redis.call('ZSCORE', fairUntilKey, member)
  if not known or tonumber(known) < keep then redis.call('ZADD', fairUntilKey, int(keep), member) end
  redis.call('ZADD', fairWaitKey, fmt(s), member)
  redis.call('HDEL', fairHeldKey, member)
  fairWaitsChanged = true
end
local function fairForget(j)
  local member = fairMember(j)
  redis.call('ZREM', fairWaitKey, member)
  redis.call('ZREM', fairUntilKey, member)
  redis.call('HDEL', fairHeldKey, member)
end`,
  // Line j cannot take its next message for its own rates before `from` (µs), which is later than the
  // room: it saves no credit while it cannot use its share (else, capped below its share, it would fall
  // ever further behind and then hold every other line back): it starts at the virtual time at most,
  // as that time is when it comes back ('h': the others' grants meanwhile move it on). Back at `back`
  // (as the room from `from` can be reserved), it is remembered as waiting for the room from `from`
  // on only (fwh), so that a line that asks first, in any process, does not take that room.
  `local function fairHeldByOwnRates(j, back, from)
  local v = virtualNow()
  if (fairTags[j] or 0) < v then fairTags[j] = v end
  fairTags[j .. 'h'] = true
  fairDirty[j] = true
  local member = fairMember(j)
  redis.call('ZADD', fairUntilKey, int(back + FAIR_SLACK), member)
  redis.call('ZADD', fairWaitKey, fmt(fairTags[j]), member)
  redis.call('HSET', fairHeldKey, member, int(from))
  fairWaitsChanged = true
end`,
  // A message of line j starting at s was granted: its tag moves on; other processes may hold more of
  // it, so a line that waits still waits, at its next start, until its time runs out.
  `local function fairGranted(j, s, c, w)
  if fairTags[j .. 'h'] then redis.call('HDEL', fairHeldKey, fairMember(j)) end
  fairTags[j] = s + c / w
  fairTags[j .. 'r'] = true
  fairTags[j .. 'h'] = nil
  fairDirty[j] = true
  if s > virtualNow() then fairVirtual = s end
  local member = fairMember(j)
  if redis.call('ZSCORE', fairWaitKey, member) then redis.call('ZADD', fairWaitKey, fmt(fairTags[j]), member) end
end`,
  // Grants go at most a tenth of the overall rates' shortest interval ahead (only while they bind does
  // a grant go ahead at all): room granted further ahead would go to the lines that asked first, before
  // the lines that come in meanwhile could claim their share (measured: the shares of four processes,
  // each with its own tenants, drifted by 10 to 28 messages a window with 750 ms ahead, within 6 with 100).
  `local function fairAhead(ahead)
  local shortest = nil
  for _, rate in ipairs(scopeRates(0)) do
    if shortest == nil or rate[2] < shortest then shortest = rate[2] end
  end
  if shortest == nil or shortest / 10 >= ahead then return ahead end
  return shortest / 10
end
local function fairSave()
  if fairVirtual == nil or (next(fairDirty) == nil and not fairWaitsChanged) then return end
  for j in pairs(fairDirty) do
    local held = ''
    if fairTags[j .. 'h'] then held = ' h' end
    redis.call('HSET', stateKey(j), stateField(j, 'ft'), fmt(fairTags[j]) .. ' ' .. int(now) .. held)
  end
  redis.call('HSET', cfgKey, 'vt', fmt(fairVirtual))
  for _, key in ipairs({ fairWaitKey, fairUntilKey, fairHeldKey }) do
    if redis.call('EXISTS', key) == 1 then redis.call('PEXPIRE', key, 600000) end
  end
end
`,
].join('\n');
