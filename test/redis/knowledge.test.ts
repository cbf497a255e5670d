import { describe, expect, it } from 'vitest';
import { Knowledge, type ReplyHeader } from '../../src/redis/knowledge.js';
import { declareConfig } from '../../src/store/limiter-config.js';
import type { StoreNotice } from '../../src/store/protocol.js';

/**
 * What a process learns from the replies' headers (no Redis needed): a new epoch where the state it
 * last heard could not have expired yet (Redis restarted empty, a flush) is told as `fresh`, so that
 * with onStoreDown 'local' it keeps its local window in force, even one that never saw a call fail
 * (issue 33: test/store/local-recovery-memory.test.ts). Not the first epoch it hears, nor one after the
 * old state may have expired by itself (its keys live 10 s past the horizon).
 */
const header = (epoch: string, horizonMs: number): ReplyHeader => ({
  epoch,
  seq: 1,
  version: 0,
  horizonUs: horizonMs * 1000,
  pausedUs: 0,
  quarantineUs: 0,
  lostNow: false,
  pauseId: '0',
  quarantineId: '0',
});

function knowledge() {
  let now = 0;
  const known = new Knowledge(
    declareConfig({ rates: '20/500ms', strategy: 'sliding-window' } as never, false),
    () => now,
  );
  const heard: StoreNotice['type'][] = [];
  known.listen((notice) => heard.push(notice.type));
  const learn = (epoch: string, at: number) => {
    now = at;
    known.learn(header(epoch, 600), at);
  };
  return { learn, heard };
}

describe('a reply with a new epoch', () => {
  it('is told as fresh when the state last heard could not have expired by itself', () => {
    const { learn, heard } = knowledge();
    learn('a', 0);
    learn('a', 500);
    expect(heard).toEqual([]);
    // Redis back empty 2 s later: the old state (horizon 600 ms, + 10 s) could not have expired.
    learn('b', 2500);
    expect(heard).toEqual(['fresh']);
    learn('b', 2600);
    expect(heard).toEqual(['fresh']);
  });

  it('is not fresh on the first reply, nor once the old state may have expired by itself', () => {
    const { learn, heard } = knowledge();
    learn('a', 0);
    learn('b', 600 + 100 + 10_000 + 1);
    expect(heard).toEqual([]);
  });
});
