// What an offer the marketplace refuses for good costs: an hour of daemon ticks every 2 s, on a
// fake clock (the ticks run back to back; the per-offer backoff reads the clock the bench moves). The sandbox
// runs in this process on 127.0.0.1 and refuses the item's status with a 422 every time.
//   BENCH_TICK_SECONDS (default 2), BENCH_HOURS (default 1)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openServices } from '../../src/cli/services.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { reconcile } from '../../src/sync/reconciler.ts';

const TICK_MS = Number(process.env.BENCH_TICK_SECONDS ?? 2) * 1000;
const HOURS = Number(process.env.BENCH_HOURS ?? 1);
const TICKS = Math.round((HOURS * 3_600_000) / TICK_MS);
const KEY = 'refused-bench-key';
const GOOD = 20;

const sandbox = await startSandbox({ apiKeys: [KEY] });
const work = mkdtempSync(join(tmpdir(), 'offersync-refused-bench-'));
const cat = join(work, 'catalogue');
mkdirSync(join(cat, 'items'), { recursive: true });
const items = Array.from({ length: GOOD }, (_, i) => ({ external_id: `it-${i}`, title: `Item ${i}`, price: 100 + i }));
// The catalogue takes any item status (the document leaves them open); this marketplace refuses this one.
items.push({ external_id: 'it-refused', title: 'Refused', price: 5, status: 'featured' } as (typeof items)[number]);
writeFileSync(join(cat, 'items', 'stock.json'), JSON.stringify(items));

async function hourOfTicks(name: string, backoff: { initialMs: number; maxMs: number; parkAfter: number } | null) {
  sandbox.reset();
  const state = join(work, `${name}.db`);
  const base = loadConfig({
    env: {},
    cwd: work,
    flags: { catalogue: cat, state, baseUrl: sandbox.url },
    overrides: { rateLimit: { ratePerSec: 10_000, burst: 1000 }, log: { level: 'silent' } },
  });
  const services = await openServices({ ...base, apiKey: KEY }, { logger: silentLogger });
  let clock = Date.now();
  const settings = backoff
    ? { ...services.reconcileDeps.settings, offerBackoff: backoff }
    : services.reconcileDeps.settings;
  const deps = { ...services.reconcileDeps, settings, now: () => clock };
  try {
    await reconcile(deps, { command: 'bench', dryRun: false });
    // Ticks with nothing refused cost one list page per kind: 3.
    sandbox.resetCounters();
    const t0 = performance.now();
    for (let i = 0; i < TICKS; i++) {
      clock += TICK_MS;
      await reconcile(deps, { command: 'tick', dryRun: false, mode: 'incremental' });
    }
    const c = sandbox.counters();
    const creates = c.byRoute['POST /api/v1/items']?.['422'] ?? 0;
    return { cost: c.total - 3 * TICKS, creates, total: c.total, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await services.close();
  }
}

let failed = false;
try {
  const withBackoff = await hourOfTicks('backoff', null);
  // The same hour with the backoff switched off (every tick may send it again), as before the per-offer backoff.
  const without = await hourOfTicks('none', { initialMs: 1, maxMs: 1, parkAfter: Number.MAX_SAFE_INTEGER });
  console.log(
    `a refused offer over ${HOURS} h of daemon ticks every ${TICK_MS / 1000} s (${TICKS} ticks, fake clock):`,
  );
  const w = withBackoff;
  console.log(
    `  with the per-offer backoff (1 min doubling, 6 h cap, parked after 10): ${w.cost} requests ` +
      `(${w.creates} creates refused); ${w.seconds.toFixed(1)} s to run`,
  );
  const times = (without.cost / Math.max(1, w.cost)).toFixed(0);
  console.log(`  without it: ${without.cost} requests (${without.creates} creates refused): ${times}x`);
  if (withBackoff.creates > 8) failed = true;
} finally {
  await sandbox.close();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
