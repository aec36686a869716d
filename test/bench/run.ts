// `npm run bench [filter]`: runs every test/bench/*.bench.ts as its own process (so RSS figures are its own),
// in name order, printing what each prints. A bench checks its own results and exits non-zero when wrong.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !filter || f.includes(filter))
  .sort();
let failed = 0;
for (const file of benches) {
  process.stdout.write(`\n== ${file}\n`);
  const res = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', join(here, file)], { stdio: 'inherit' });
  if (res.status !== 0) {
    failed++;
    process.stdout.write(`!! ${file} exited ${res.status ?? res.signal}\n`);
  }
}
process.stdout.write(`\nbench: ${benches.length - failed} passed, ${failed} failed\n`);
process.exitCode = failed > 0 ? 1 : 0;
