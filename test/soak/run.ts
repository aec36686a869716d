// npm run soak [-- --minutes N] [--seed S] [--keep]: the soak under faults (test/soak/soak.ts), 3 minutes by
// default. Prints what was survived and every violation; exits 1 on any violation.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runSoak, tail } from './soak.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    seconds: { type: 'string' },
    seed: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'log-level': { type: 'string', default: 'warn' },
  },
});
const seconds = values.seconds !== undefined ? Number(values.seconds) : Number(values.minutes) * 60;
if (!Number.isFinite(seconds) || seconds <= 0) {
  process.stderr.write(
    `soak: --minutes and --seconds take a positive number, got ${values.minutes ?? values.seconds}\n`,
  );
  process.exit(2);
}
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 1e9);
// The shipped CLI (dist/, from npm run build) when it is built; else the sources through tsx.
const bin = fileURLToPath(new URL('../../bin/offersync.js', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../../dist/cli/entry.js', import.meta.url)));
process.stdout.write(
  `soak: ${seconds} s, seed ${seed} (repeat with --seed ${seed}), ` +
    `${built ? 'dist/ (npm run build)' : 'the sources through tsx'}\n`,
);
const t0 = Date.now();
const r = await runSoak({
  durationMs: seconds * 1000,
  seed,
  keep: values.keep,
  logLevel: values['log-level'],
  ...(built ? { cli: [bin] } : {}),
  log: (l) => process.stdout.write(`${l}\n`),
});
process.stdout.write(`\nsoak finished in ${Math.round((Date.now() - t0) / 1000)} s\n`);
for (const [what, n] of Object.entries(r.counts)) process.stdout.write(`  ${what.padEnd(38)} ${n}\n`);
if (r.violations.length === 0) {
  process.stdout.write(
    '\nno violation: remote = catalogue minus sold, no unit sold put back on sale, no duplicate, every offer ' +
      'mapped, journal settled, a further reconcile wrote nothing\n',
  );
} else {
  process.stdout.write(`\n${r.violations.length} violation(s):\n`);
  for (const v of r.violations) process.stdout.write(`  - ${v}\n`);
  process.stdout.write(`\nlast lines of the daemon log:\n${tail(`${r.dir}/daemon.log`)}\n`);
  process.exitCode = 1;
}
