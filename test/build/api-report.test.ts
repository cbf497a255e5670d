import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ENTRY_POINTS,
  type EntryPoint,
  formatReport,
  readSurface,
  reportPath,
  surfaceProgram,
} from '../../scripts/api-report.js';
import { optionalPropertiesWithoutUndefined } from '../support/optional-properties.js';

/**
 * The public surface as a contract: every name of every entry point is in a checked-in report
 * (api/<entry>.api.txt), so that a change to it is a visible diff in review, and every name (and every
 * event type of the event unions) has its own heading in docs/reference.md.
 */
const program = surfaceProgram();
const surface = readSurface(program);
const reference = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'reference.md'), 'utf8');
/** The first code span of every heading: `### \`schedule(task, options?)\`` is `schedule`. */
const headings = new Set([...reference.matchAll(/^#{2,5} `([A-Za-z_$][\w$]*)/gm)].map((match) => match[1] as string));

describe.each(ENTRY_POINTS)('the API report of $specifier', (entry) => {
  const names = surface.get(entry) ?? [];

  it('is the checked-in api report', () => {
    const checkedIn = readFileSync(reportPath(entry), 'utf8');
    expect(
      formatReport(entry, names),
      `The public surface of ${entry.specifier} (${entry.file}) differs from api/${entry.name}.api.txt. ` +
        'If the change is meant, run `npm run api:report`, document what is new in docs/reference.md and commit both.',
    ).toBe(checkedIn);
  });

  it('has a heading in docs/reference.md for every name and event type', () => {
    const documented = names.flatMap(({ name, eventTypes }) => [name, ...eventTypes]);
    const missing = documented.filter((name) => !headings.has(name));
    expect(missing, `docs/reference.md needs a heading (e.g. ### \`${missing[0]}\`) for each of these`).toEqual([]);
  });
});

describe('the main entry point', () => {
  const main = surface.get(ENTRY_POINTS[0] as EntryPoint) ?? [];
  const byName = (name: string) => main.find((exported) => exported.name === name);

  // 31: every reason a task is rejected has its class (ThrottlerOverflowError, issue 34).
  it('stays small: at most 31 names (p-queue exports 6)', () => {
    expect(main.length).toBeLessThanOrEqual(31);
  });

  it("keeps the machine's internals out of its public types", () => {
    expect(byName('ThrottlerContext')?.members).toEqual(['counts', 'inFlight', 'target', 'version', 'wakeAt']);
    expect(byName('ThrottlerInput')?.members).not.toContain('deliveryGate');
    const own = ['WAKE', 'DRAINED', 'WORK_WAITING', 'CLEARANCE', 'STORE_STATUS', 'LEASE', 'LEASE_END'];
    expect(byName('ThrottlerEvent')?.eventTypes.filter((type) => own.includes(type))).toEqual([]);
  });
});

describe('the public types, for exactOptionalPropertyTypes users', () => {
  it('type every optional property a user can reach as `?: T | undefined`', () => {
    const { offenders, checked } = optionalPropertiesWithoutUndefined(program);
    expect(checked).toBeGreaterThan(80);
    expect(offenders, 'these optional properties need `| undefined` in their type').toEqual([]);
  });
});
