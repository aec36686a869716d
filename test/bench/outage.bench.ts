// The state outage of record: test/e2e/state-outage.test.ts with PostgreSQL stopped for 30 s (the suite stops it
// for 5 s) under a running daemon. Prints the timeline the test saw; fails when the test does.
//   npm run bench outage        BENCH_OUTAGE_MS=30000 for another length
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUTAGE_MS = process.env.BENCH_OUTAGE_MS ?? '30000';
const res = spawnSync(
  process.execPath,
  [
    fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url)),
    'run',
    'test/e2e/state-outage.test.ts',
  ],
  { cwd: ROOT, env: { ...process.env, OFFERSYNC_OUTAGE_MS: OUTAGE_MS }, encoding: 'utf8' },
);
const out = `${res.stdout}${res.stderr}`;
const timeline = /state outage of \d+ ms, timeline:\n(?:\s+[\d.]+ s .*\n?)+/.exec(out);
console.log(timeline ? timeline[0].trimEnd() : out.slice(-4000));
process.exit(res.status === 0 ? 0 : 1);
