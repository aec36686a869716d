// promtool (Debian's prometheus package; .ci/run installs it): whether it is here, and running it. Tests that
// need it skip only when it is absent and REQUIRE_PROMTOOL is unset, and say so loudly.
import { spawnSync } from 'node:child_process';

export const promtoolFound = spawnSync('promtool', ['--version']).status === 0;

/** Skip the promtool tests: promtool is absent and CI (REQUIRE_PROMTOOL) does not demand it. */
export const skipPromtool = !promtoolFound && !process.env.REQUIRE_PROMTOOL;
if (skipPromtool)
  console.warn(
    '!! promtool is NOT installed: the promtool checks of /metrics and the alert rules are SKIPPED. ' +
      'Install it (apt-get install prometheus) or run .ci/run, which does.',
  );

/** Runs promtool; its output (stdout and stderr) and exit status. */
export function promtool(args: readonly string[], opts: { input?: string; cwd?: string } = {}) {
  const r = spawnSync('promtool', args, { encoding: 'utf8', input: opts.input, cwd: opts.cwd });
  if (r.error) throw new Error(`promtool did not run (apt-get install prometheus): ${r.error.message}`);
  return { output: `${r.stdout}${r.stderr}`.trim(), status: r.status };
}
