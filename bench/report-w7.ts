/**
 * The report's part for W7 (a language-model quota, issues 26, 36, 39): its table per provider, the
 * paragraph that says what it measures, its contenders' configurations, and issue 36's targets judged on
 * the run. Results from before W7 existed have none; results from the W7 of issue 26 (one provider, no
 * jitter) are not read, and say so.
 */
import type { BenchResults } from './bench-results.js';
import { fixed, integer, table, yes } from './markdown.js';
import {
  type GuessKind,
  guessTokens,
  type LlmQuotaOptions,
  type LlmQuotaRun,
  QUOTA_CONTENDERS,
} from './w7-llm-quota.js';

const percent = (share: number, digits = 0): string => `${fixed(100 * share, digits)}%`;

const GUESS_LABEL: Record<GuessKind, string> = {
  mean: 'the mean rounded up',
  largest: 'the largest a request can be',
  'twice-mean': 'twice the mean',
};

const PROVIDER_TEXT: Record<string, string> = {
  openai:
    "`'openai'` (sliding windows; a request charged max(max_tokens, its size estimate) when it arrives, nothing given back)",
  anthropic:
    "`'anthropic'` (token buckets for requests, input and output tokens, each holding its limit and refilled continuously; output reserved at max_tokens when a request arrives and given back down to what the model wrote)",
  'actual-usage': "`'actual-usage'` (sliding windows; a request counts the input and output tokens its answer used)",
};

/** The options of the W7 this report reads (issues 36 and 39), or undefined for older results. */
function w7Options(results: BenchResults): LlmQuotaOptions | undefined {
  const o = results.config.w7 as LlmQuotaOptions | undefined;
  return o?.providers === undefined ? undefined : o;
}

const limitsText = (o: LlmQuotaOptions, mode: keyof LlmQuotaOptions['limits']): string => {
  const l = o.limits[mode];
  const tokens =
    mode === 'anthropic'
      ? `${integer(l.inputTokens ?? 0)} input and ${integer(l.outputTokens ?? 0)} output tokens`
      : `${integer(l.tokens ?? 0)} tokens`;
  return `${integer(l.requests)} requests and ${tokens} per ${fixed(l.windowMs / 1000, 0)} s`;
};

export function w7Workload(results: BenchResults): string[] {
  const o = w7Options(results);
  if (o === undefined) return [];
  const [p0, p1] = o.shape.promptTokens;
  const [m0, m1] = o.shape.maxTokens;
  const guesses = o.providers.map(
    (mode) =>
      `${mode}: ${o.guesses.map((kind) => `${integer(guessTokens(mode, kind, o.shape))} (${GUESS_LABEL[kind]})`).join(', ')}`,
  );
  return [
    `- **W7 a language-model quota, real timers and HTTP, 20-150 ms uplink** (issues 26, 36, 39). ${integer(o.jobs)} requests to each mock provider of examples/llm/ in turn, each counting as that provider does, at its stated limits: ${o.providers.map((mode) => `${PROVIDER_TEXT[mode]}: ${limitsText(o, mode)}`).join('; ')} (a provider's minute, scaled down). Each request crosses a real socket on 127.0.0.1 held ${o.uplinkMs[0]}-${o.uplinkMs[1]} ms before the provider counts it and ${o.downlinkMs[0]}-${o.downlinkMs[1]} ms on its way back (seeded); past a limit, a 429 with \`retry-after\` (whole seconds) and the provider's rate-limit headers. A request's prompt is ${p0} to ${p1} tokens and its max_tokens ${m0} to ${m1} (the same seeded sizes for every contender); the model writes 30% to 100% of max_tokens, known only from the answer's \`usage\`. Ours charges each request what the provider will count, computed from its body by the provider's helper, and settles it only where the provider gives back; p-queue has no cost per task and Bottleneck a weight, so each charges one fixed guess in the binding quota (the requests' quota never binds): ${guesses.join('; ')} tokens; against OpenAI, Bottleneck runs once more with the charge as its weight. A 429 is sent again after its retry-after, the way each library offers. Measured at the provider, in its binding quota: its fullest window as counted; per window over the steady part (every window starting from a window after the first arrival to a window before the last: a bucket starts full, and the queue runs dry at the end) the tokens the answers used and the quota as the provider counted it (after refunds), each of the limit; the largest round trip (send to answer: the uplink's spread J is below it); and the time from the hand-over until the last request was answered 200, against the ideal (the counted quota at exactly the limit: a window's worth every window, or for a bucket its capacity then its refill).`,
  ];
}

export function w7Configurations(results: BenchResults): string[] {
  const o = w7Options(results);
  if (o === undefined) return [];
  const mode = o.providers[0] ?? 'openai';
  const at = {
    limits: o.limits[mode],
    jobs: o.jobs,
    shape: o.shape,
    seed: o.seed,
    guess: guessTokens(mode, o.guesses[0] ?? 'mean', o.shape),
  };
  return [
    '',
    `W7's contenders against the ${mode} provider (the others alike, each at its own limits and binding quota), at the first guess (${at.guess} tokens a request) for those that charge one:`,
    '',
    ...QUOTA_CONTENDERS.map((contender) => `- **${contender.name}**: ${contender.configuration(at)}.`),
  ];
}

const chargeText = (run: LlmQuotaRun): string =>
  run.guess === undefined
    ? 'per request'
    : `${integer(run.guess)}${run.guessKind === undefined ? '' : ` (${GUESS_LABEL[run.guessKind]})`}`;

function providerTable(o: LlmQuotaOptions, mode: string, runs: readonly LlmQuotaRun[]): string[] {
  const window = `${fixed((o.limits[mode as keyof LlmQuotaOptions['limits']]?.windowMs ?? 0) / 1000, 0)} s`;
  return table(
    [
      'contender',
      'charge (binding quota)',
      'answered',
      '429s',
      `fullest ${window}, counted (of the limit)`,
      'tokens used per window, steady (of the limit)',
      'counted per window, steady (of what the provider lets through)',
      'largest round trip ms',
      'finished in s (ideal)',
    ],
    runs.map((run) => [
      run.error === undefined ? run.name : `${run.name} (failed: ${run.error.slice(0, 80)})`,
      chargeText(run),
      integer(run.answered),
      integer(run.refused),
      percent(run.fullest),
      percent(run.steadyUsed, 1),
      percent(run.steadyCounted, 1),
      integer(run.largestTripMs),
      `${fixed(run.finishMs / 1000, 1)} (${fixed(run.idealMs / 1000, 1)})`,
    ]),
  );
}

export interface W7Target {
  provider: string;
  /** Which of ours (each configuration of ours is judged). */
  contender: string;
  target: string;
  measured: string;
  met: boolean;
}

/**
 * Issue 36's targets for each configuration of ours against each provider: 0 429s, >= 95% steady, within 5%
 * of the ideal, ahead of every guess.
 */
export function w7Targets(runs: readonly LlmQuotaRun[]): W7Target[] {
  const targets: W7Target[] = [];
  for (const provider of [...new Set(runs.map((run) => run.provider))]) {
    const mine = runs.filter((run) => run.provider === provider);
    const others = mine.filter((run) => run.guess !== undefined);
    for (const ours of mine.filter((run) => run.name.startsWith('xstate-throttler'))) {
      targets.push(...targetsOf(provider, ours, others));
    }
  }
  return targets;
}

function targetsOf(provider: string, ours: LlmQuotaRun, others: readonly LlmQuotaRun[]): W7Target[] {
  const contender = ours.name.replace(/^xstate-throttler \(createThrottler(, )?/, '').replace(/\)$/, '') || 'unpaced';
  const late = ours.finishMs / ours.idealMs - 1;
  const behind = others.filter((run) => !(ours.finishMs < run.finishMs && ours.refused <= run.refused));
  return [
    { provider, contender, target: '0 429s', measured: integer(ours.refused), met: ours.refused === 0 },
    {
      provider,
      contender,
      target: '>= 95% of the quota per window, steady',
      measured: percent(ours.steadyCounted, 1),
      met: ours.steadyCounted >= 0.95,
    },
    {
      provider,
      contender,
      target: 'finished within 5% of the ideal',
      measured: `${fixed(ours.finishMs / 1000, 1)} s for ${fixed(ours.idealMs / 1000, 1)} (${late >= 0 ? '+' : ''}${percent(late, 1)})`,
      met: late <= 0.05,
    },
    {
      provider,
      contender,
      target: 'ahead of p-queue and Bottleneck at every guess (sooner, no more 429s)',
      measured:
        behind.length === 0
          ? `ahead of all ${others.length}`
          : `not ahead of ${behind.map((run) => `${run.name.split(' ')[0]} at ${run.guess}`).join(', ')}`,
      met: behind.length === 0,
    },
  ];
}

export function w7Tables(results: BenchResults): string[] {
  const runs = results.w7;
  const o = w7Options(results);
  if (runs === undefined) return [];
  if (o === undefined) {
    return ['### W7 a language-model quota', '', "(results from issue 26's W7: run `npm run bench -- --only w7`)", ''];
  }
  const loads = runs.map((run) => run.load);
  const lines = [
    `### W7 a language-model quota: ${integer(o.jobs)} requests to each provider, ${o.uplinkMs[0]}-${o.uplinkMs[1]} ms uplink`,
    '',
    `One run, every contender in it; the 1-minute load average (2 cores) was ${fixed(Math.min(...loads), 1)} to ${fixed(Math.max(...loads), 1)} at the runs' starts.`,
    '',
  ];
  for (const mode of o.providers) {
    const mine = runs.filter((run) => run.provider === mode);
    if (mine.length === 0) continue;
    lines.push(`#### ${mode}: ${limitsText(o, mode)}, binding: ${o.limits[mode].binding}`, '');
    lines.push(...providerTable(o, mode, mine), '');
  }
  lines.push(
    "Issue 36's targets for ours, on this run:",
    '',
    ...table(
      ['provider', 'ours', 'target', 'measured', ''],
      w7Targets(runs).map((t) => [t.provider, t.contender, t.target, t.measured, yes(t.met)]),
    ),
    '',
  );
  return lines;
}
