import { AUDIT_TRAIL } from './audit-trail.js';
import { EPILOGUE, PRELUDE } from './prelude.js';
import { SETTLE_BODY } from './settle.js';

/**
 * Gives unused sliding-window grants back. Removing a grant only lowers what windows hold, so it is
 * always safe for grants that were not used (with rates in dimensions, from the log of every dimension it
 * costs something in). The running totals of the grants after a removed one
 * are lowered by its cost, so that the log's scores stay exact running totals (a release is rare:
 * this is O(grants after it)). FIFO stays: the floor for new grants is the newest grant left.
 *
 * Script ARGV after the header: triples (scope j, epoch the reservation was granted in, member).
 * A reservation from another epoch (a lost state) or already gone is ignored. Token bucket: a
 * no-op (a spent permit stays spent). Reply: the header. With 'settle' first, it settles grants
 * instead (settle.ts).
 */
export const RELEASE_SCRIPT = `${PRELUDE}${AUDIT_TRAIL}

if ARGV[HEADER + 1] == 'settle' then
  if declared.strategy == 'sliding-window' and not created then
${SETTLE_BODY}
  end
elseif declared.strategy == 'sliding-window' and not created then
  -- Per scope, the released members still present, with their running totals.
  local released = {}
  for index = HEADER + 1, #ARGV, 3 do
    local j = tonumber(ARGV[index])
    if ARGV[index + 1] == e then
      local member = ARGV[index + 2]
      local scopes = { 0 }
      if j > 0 then scopes[2] = j end
      local costs = costsOfMember(member)
      for _, s in ipairs(scopes) do
        for _, d in ipairs(dimsOf(costs)) do
          local key = logKey(s, d)
          local score = redis.call('ZSCORE', key, member)
          if score then
            released[key] = released[key] or { s = s, d = d }
            local list = released[key]
            list[#list + 1] = { total = tonumber(score), cost = costFor(costs, d), member = member }
          end
        end
      end
    end
  end
  for key, list in pairs(released) do
    table.sort(list, function(a, b) return a.total < b.total end)
    local gone = {}
    for _, item in ipairs(list) do
      gone[item.member] = true; redis.call('ZREM', key, item.member); recordRemoval(item.member)
    end
    local later = redis.call('ZRANGEBYSCORE', key, '(' .. int(list[1].total), '+inf', 'WITHSCORES')
    local shift, next = 0, 1
    local batch = {}
    for i = 1, #later, 2 do
      local total = tonumber(later[i + 1])
      while next <= #list and list[next].total < total do
        shift = shift + list[next].cost
        next = next + 1
      end
      batch[#batch + 1] = int(total - shift)
      batch[#batch + 1] = later[i]
      if #batch >= 1000 then redis.call('ZADD', key, unpack(batch)); batch = {} end
    end
    if #batch > 0 then redis.call('ZADD', key, unpack(batch)) end
    refreshNewest(list.s, key, list.d)
  end
end
${EPILOGUE}
return reply
`;
