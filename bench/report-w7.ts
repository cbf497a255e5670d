/**
 * The report's part for W7 (a language-model quota, issue 26): its table, the paragraph that says what
 * it measures, and its contenders' configurations. Results from before W7 existed have none.
 */
import type { BenchResults } from './bench-results.js';
import { fixed, integer, table } from './markdown.js';
import { LLM_QUOTA_DEFAULTS, type LlmQuotaOptions, QUOTA_CONTENDERS } from './w7-llm-quota.js';

const percent = (part: number, whole: number): string => `${fixed((100 * part) / whole, 0)}%`;

/** What a guess is, against the requests' sizes: the mean (150 + 0.65 max_tokens), the largest, twice the mean. */
function guessLabel(o: LlmQuotaOptions, guess: number): string {
  const mean = 150 + 0.65 * o.maxTokens;
  if (guess === 250 + o.maxTokens) return 'the largest a request can be';
  if (Math.abs(guess - 2 * mean) <= 10) return 'twice the mean';
  if (Math.abs(guess - mean) <= 10) return 'the mean rounded up';
  return `${fixed(guess / mean, 1)} times the mean`;
}

export function w7Workload(results: BenchResults): string[] {
  const o = results.config.w7;
  if (o === undefined) return [];
  return [
    `- **W7 a language-model quota, real timers and HTTP** (issue 26). ${integer(o.jobs)} requests to a mock model server (examples/llm/) that allows ${integer(o.requests)} requests and ${integer(o.tokens)} tokens per ${fixed(o.windowMs / 1000, 0)} s (a provider's minute, scaled down), each a sliding window over what it accepted, stated only in OpenAI's \`x-ratelimit-*\` headers, with a 429 and \`retry-after\` (whole seconds) past either. A request's actual tokens are its prompt (50 to 250, the same seeded sizes for every contender) and what the model writes (30% to 100% of max_tokens ${o.maxTokens}): ${fixed(150 + 0.65 * o.maxTokens, 0)} on average, known only from the answer's \`usage\`. Every contender charges one fixed guess per request, as none can know more before it sends: ${o.guesses.map((guess) => `${integer(guess)} (${guessLabel(o, guess)})`).join(', ')} tokens. xstate-throttler settles each request to its answer's \`usage\` (estimate, then settle); the others have no way to. A 429 is sent again after its retry-after, the way each library offers. Measured at the server: the tokens it accepted in its fullest window and per window on average (from the first accepted request to a window after the last), the 429s, and the time from the hand-over until the last request was answered, against the ideal (the actual tokens at exactly the limit).`,
  ];
}

export function w7Configurations(results: BenchResults): string[] {
  const o = results.config.w7;
  if (o === undefined) return [];
  const at = { ...o, guess: o.guesses[0] ?? LLM_QUOTA_DEFAULTS.guesses[0] ?? 350 };
  return [
    '',
    `W7's contenders, at its first guess (${at.guess} tokens a request), each configured at its best for two limits at once with a fixed guess; only ours then charges a request what the answer says it cost:`,
    '',
    ...QUOTA_CONTENDERS.map((contender) => `- **${contender.name}**: ${contender.configuration(at)}.`),
  ];
}

export function w7Tables(results: BenchResults): string[] {
  const runs = results.w7;
  const o: LlmQuotaOptions | undefined = results.config.w7;
  if (runs === undefined || o === undefined) return [];
  return [
    `### W7 a language-model quota: ${integer(o.jobs)} requests, ${integer(o.requests)} requests and ${integer(o.tokens)} tokens per ${fixed(o.windowMs / 1000, 0)} s`,
    '',
    ...table(
      [
        'contender',
        'guess (tokens a request)',
        'answered',
        '429s',
        `tokens in the fullest ${fixed(o.windowMs / 1000, 0)} s (of the limit)`,
        'tokens per window, mean (of the limit)',
        'finished in s (ideal)',
      ],
      runs.map((run) => [
        run.error === undefined ? run.name : `${run.name} (failed: ${run.error.slice(0, 80)})`,
        integer(run.guess),
        integer(run.answered),
        integer(run.refused),
        `${integer(run.mostTokens)} (${percent(run.mostTokens, o.tokens)})`,
        `${integer(run.meanTokens)} (${percent(run.meanTokens, o.tokens)})`,
        `${fixed(run.finishMs / 1000, 1)} (${fixed(run.idealMs / 1000, 1)})`,
      ]),
    ),
    '',
  ];
}
