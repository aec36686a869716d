// Daemon figures (docs/measurements.md, What the benches check): a saved file reaches the marketplace in under
// 1 s (p95) when the queue is idle, and a tick with no change costs one request per kind. The sandbox runs in this
// process on 127.0.0.1.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { openServices } from '../../src/cli/services.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { Daemon } from '../../src/daemon/daemon.ts';
import { watchCatalogue } from '../../src/catalogue/watcher.ts';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 20);
const OFFERS = 300;
const KEY = 'daemon-bench-key';
const sandbox = await startSandbox({ apiKeys: [KEY] });
const work = mkdtempSync(join(tmpdir(), 'offersync-daemon-bench-'));
const cat = join(work, 'catalogue');
for (const sub of ['accounts', 'items', 'top-ups']) mkdirSync(join(cat, sub), { recursive: true });
const writeItems = (price: number) =>
  writeFileSync(
    join(cat, 'items', 'stock.json'),
    JSON.stringify(
      Array.from({ length: OFFERS }, (_, i) => ({
        external_id: `it-${i}`,
        title: `Item ${i}`,
        price: i === 0 ? price : 100 + i,
      })),
    ),
  );
writeItems(1000);

const base = loadConfig({
  env: {},
  cwd: work,
  flags: { catalogue: cat, state: join(work, 'state.db'), baseUrl: sandbox.url },
  overrides: { rateLimit: { ratePerSec: 50, burst: 8 }, log: { level: 'silent' } },
});
const config = { ...base, apiKey: KEY };
const services = await openServices(config, { logger: silentLogger });
const daemon = new Daemon({
  deps: services.reconcileDeps,
  store: services.store,
  catalogue: services.catalogue,
  watch: () => watchCatalogue(cat, { debounceMs: config.daemon.debounceMs, logger: silentLogger }),
  logger: silentLogger,
  fullSweep: '0 0 1 1 *',
  tick: '0 0 1 1 *',
  health: null,
});
let failed = false;
try {
  await daemon.start();
  const latencies: number[] = [];
  for (let n = 1; n <= SAMPLES; n++) {
    await new Promise((r) => setTimeout(r, 1100)); // let the rate-limit bucket refill: "the queue is idle"
    const price = 1000 + n;
    const t0 = performance.now();
    writeItems(price);
    const deadline = t0 + 10_000;
    for (;;) {
      if (sandbox.dump().items.find((i) => i.external_id === 'it-0')?.price === price) break;
      if (performance.now() > deadline) throw new Error(`change ${n} did not arrive within 10 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    latencies.push(performance.now() - t0);
  }
  await daemon.idle();
  latencies.sort((a, b) => a - b);
  const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]!;
  console.log(
    `saved file -> marketplace over ${SAMPLES} saves (debounce ${config.daemon.debounceMs} ms, ${OFFERS} items in ` +
      `the file):`,
  );
  console.log(
    `  p50 ${p(0.5).toFixed(0)} ms, p95 ${p(0.95).toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms (goal p95 ` +
      `< 1000 ms)`,
  );

  sandbox.resetCounters();
  daemon.trigger('incremental', 'tick');
  await daemon.idle();
  const tick = sandbox.counters();
  console.log(`  tick with no change: ${tick.total} requests (goal: 3, one per kind), ${tick.writes} writes`);
  if (tick.total !== 3 || tick.writes !== 0) failed = true;
} finally {
  await daemon.stop();
  await services.close();
  await sandbox.close();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
