/**
 * The window audit as a feature value (options/features-option.ts): the main entry loads it by itself,
 * xstate-throttler/lean only with `features: [audit]`, so an app that never asks `auditThrottler` does
 * not bundle it.
 */
import type { Rate } from '../../rate/index.js';
import type { FeatureValue } from '../options/feature-value.js';
import { type AuditedLimits, ThrottlerAudit } from './throttler-audit.js';

/** The audit feature: builds a throttler's ThrottlerAudit. */
export interface AuditFeature extends FeatureValue<'audit'> {
  /** A throttler's audit, of `limits` from `now`; `ratesOfKey`: a live key's own rates (the clearance's). */
  readonly create: (
    limits: AuditedLimits,
    now: number,
    ratesOfKey?: (name: string) => readonly Rate[] | undefined,
  ) => ThrottlerAudit;
}

const auditFeature: AuditFeature = {
  feature: 'audit',
  create: (limits, now, ratesOfKey) => new ThrottlerAudit(limits, now, ratesOfKey),
};

/** Every window the deliveries filled, audited (auditThrottler): pass it in `features` to xstate-throttler/lean. */
export const audit: FeatureValue<'audit'> = auditFeature;
