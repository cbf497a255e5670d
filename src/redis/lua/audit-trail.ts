/**
 * What the fleet audit (lua/audit.ts) needs the other scripts to leave behind, beside the logs: which
 * grants were taken out of a log by a give-back or a re-time (a trim leaves no trace, so a grant that
 * leaves a log unrecorded was kept), and which keys had grants (a key's log cannot be found otherwise).
 * Both are sorted sets, trimmed here to two longest intervals (the audit must read once per shortest
 * one) and expiring, so memory follows the traffic of two intervals. Uses the prelude's cfgKey, now, L.
 * Keys of the limiter's hash tag, named from the configuration's key (`...cfg` -> `...gone`, `...ki`).
 */
export const AUDIT_TRAIL = `
local auditBase = string.sub(cfgKey, 1, #cfgKey - 3)
local function trailKeep(key, score, member)
  redis.call('ZADD', key, int(score), member)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. int(now - 2 * L))
  local life = math.ceil((3 * L + 60000000) / 1000)
  if declared.test then life = 600000 end
  redis.call('PEXPIRE', key, life)
end
-- A grant taken out of a log at now: the audit counts it only if it had left every window before.
local function recordRemoval(member) trailKeep(auditBase .. 'gone', now, member) end
-- A key's newest grant: the audit reads the logs of the keys with grants since its last read.
local function indexKeyGrant(name, t) trailKeep(auditBase .. 'ki', t, name) end
`;
