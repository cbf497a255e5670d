import { existsSync } from 'node:fs';

/**
 * The system's Chromium, for the browser test project (vitest.config.ts) and the live page's test
 * (test/examples/browser-page.test.ts): Playwright cannot download its own browser here, so both
 * drive Debian's `chromium`. One rule for both: CHROMIUM_PATH, else a usual install path; none
 * found skips those tests with one line saying so, except under CI=true, where that is an error.
 */

export const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The Chromium to test in; CHROMIUM_PATH=none means none, as if there were none installed. */
export function findChromium(): string | undefined {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen === 'none') return undefined;
  if (chosen) {
    if (!existsSync(chosen)) throw new Error(`CHROMIUM_PATH is ${chosen}, which does not exist`);
    return chosen;
  }
  return CHROMIUM_PATHS.find((path) => existsSync(path));
}

/** Why a test in Chromium did not run: one line, with what to do about it. */
export const NO_CHROMIUM = `no Chromium (looked at CHROMIUM_PATH, ${CHROMIUM_PATHS.join(', ')}); apt-get install -y chromium to run it`;

/** Under CI a missing Chromium is an error: CI must run the browser tests (.ci/run installs it). */
export const missingChromiumIsAnError = (): boolean => process.env.CI === 'true';

/** Chromium's command-line flags for tests: no network, no GPU, and no sandbox as root. */
export function chromiumArgs(): string[] {
  const args = [
    // This machine has no network: keep Chromium from reaching for it (and waiting on it).
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    '--no-first-run',
    '--disable-gpu',
    // Containers often give /dev/shm only 64 MB, too little for Chromium's shared memory.
    '--disable-dev-shm-usage',
  ];
  // Chromium refuses to start its sandbox as root (containers, CI).
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return args;
}
