// Reconcile into an empty sandbox (its own process, on 127.0.0.1) limited to R requests/s, then a no-op run.
// Prints: requests used / minimum (goal 1.00), wall / (requests / R) (goal <= 1.10), 429s after the first
// (goal 0), peak RSS of this process. BENCH_OFFERS (default 10000), BENCH_RATE (default 50; 0 = unlimited).
//   npm run bench reconcile
//   BENCH_OFFERS=100000 BENCH_RATE=0 npm run bench reconcile     (the memory figure for 100k offers)
//   BENCH_LIVE=1 ...                                             (GC before each sample: the live set)
// The client bucket runs 2 below the server burst: loopback jitter can bunch two requests, and an empty
// server bucket then answers 429 (measured: burst 10/10 gives one 429 and a 1 s pause; 8/10 gives none).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.ts';
import { openServices } from '../../src/cli/services.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { reconcile } from '../../src/sync/reconciler.ts';
import { makePng } from '../support/png.ts';
import { CLI } from '../support/cli.ts';

const N = Number(process.env.BENCH_OFFERS ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const BURST = RATE > 0 ? Math.max(1, Math.round(RATE / 5)) : 1000;
const KEY = 'bench-key-42';
const PER_PAGE = 100;

/** A distinct 1x1 PNG per seed (up to 65536). */
function png(seed: number): Buffer {
  const c: [number, number, number] = [seed & 0xff, (seed >> 8) & 0xff, 0];
  return makePng(1, 1, c, c); // a 1x1 image is all stripe: give the stripe the colour too
}

function writeCatalogue(dir: string): { accounts: number; items: number; topups: number; images: number } {
  for (const sub of ['accounts', 'items', 'top-ups', 'images']) mkdirSync(join(dir, sub), { recursive: true });
  const accounts: string[] = [];
  const items: string[] = [];
  const topups: string[] = [];
  let images = 0;
  for (let i = 0; i < N; i++) {
    if (i % 3 === 0) {
      const withImage = i % 60 === 0; // 5% of accounts
      if (withImage) writeFileSync(join(dir, 'images', `a${i}.png`), png(images++));
      accounts.push(
        JSON.stringify({
          external_id: `acc-${i}`,
          title: `Account ${i}`,
          price: 1000 + i,
          rank: 'gold_2',
          level: 30,
          champions: ['Ahri'],
          ...(withImage ? { images: [`images/a${i}.png`] } : {}),
        }),
      );
    } else if (i % 3 === 1)
      items.push(JSON.stringify({ external_id: `it-${i}`, title: `Item ${i}`, price: 100 + i, stock: 1 }));
    else
      topups.push(JSON.stringify({ external_id: `tu-${i}`, offer_title: `${i} gems`, price: 50 + i, offer_amount: i }));
  }
  writeFileSync(join(dir, 'accounts', 'a.ndjson'), accounts.join('\n'));
  writeFileSync(join(dir, 'items', 'i.ndjson'), items.join('\n'));
  writeFileSync(join(dir, 'top-ups', 't.ndjson'), topups.join('\n'));
  return { accounts: accounts.length, items: items.length, topups: topups.length, images };
}

async function startSandboxProcess(): Promise<{ url: string; stop: () => void }> {
  const args = [...CLI, 'sandbox', '--port', '0', '--api-key', KEY];
  if (RATE > 0) args.push('--rate', String(RATE), '--burst', String(BURST));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    setTimeout(() => reject(new Error('sandbox did not start')), 20_000).unref();
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (m) resolve(m[0]);
    });
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

async function counters(
  url: string,
): Promise<{ total: number; rateLimited: number; byRoute: Record<string, Record<string, number>> }> {
  return (await fetch(`${url}/__sandbox/counters`)).json() as never;
}

const work = mkdtempSync(join(tmpdir(), 'offersync-bench-'));
const sandbox = await startSandboxProcess();
let failed = false;
try {
  const shape = writeCatalogue(join(work, 'catalogue'));
  const base = loadConfig({
    env: {},
    cwd: work,
    flags: { catalogue: join(work, 'catalogue'), state: join(work, 'state.db'), baseUrl: sandbox.url },
    overrides: {
      rateLimit: {
        ratePerSec: RATE > 0 ? Number(process.env.BENCH_CLIENT_RATE ?? RATE) : 100_000,
        burst: Number(process.env.BENCH_CLIENT_BURST ?? Math.max(1, BURST - 2)),
        concurrency: 16,
      },
      lists: { perPage: PER_PAGE },
      log: { level: 'silent' },
    },
  });
  const config = { ...base, apiKey: KEY };
  let peak = process.memoryUsage().rss;
  let peakHeap = 0;
  // BENCH_LIVE=1: a full GC before each sample, so the figure is the live set, not what V8 has not collected yet.
  const live = process.env.BENCH_LIVE === '1' && typeof global.gc === 'function';
  const sampler = setInterval(
    () => {
      if (live) global.gc!();
      const m = process.memoryUsage();
      peak = Math.max(peak, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    },
    live ? 500 : 20,
  );

  const services = openServices(config, { logger: silentLogger });
  const t0 = performance.now();
  // Only the outcome is kept: holding the whole result (plan, catalogue, outcomes) would count twice below.
  const firstOutcome = (await reconcile(services.reconcileDeps, { command: 'bench', dryRun: false })).report.outcome;
  const wall = (performance.now() - t0) / 1000;
  await services.close();
  const c1 = await counters(sandbox.url);
  const minimum = 3 /* one page per empty list */ + N + shape.images;
  console.log(
    `reconcile ${N} offers (${shape.accounts} accounts, ${shape.items} items, ${shape.topups} top-ups, ${shape.images} images) into an empty sandbox${RATE > 0 ? ` at ${RATE} req/s (burst ${BURST})` : ' (no rate limit)'}:`,
  );
  console.log(
    `  outcome ${firstOutcome}; requests ${c1.total}, minimum ${minimum}: ratio ${(c1.total / minimum).toFixed(3)} (goal 1.00)`,
  );
  if (RATE > 0)
    console.log(
      `  wall ${wall.toFixed(1)} s; requests/R ${(c1.total / RATE).toFixed(1)} s: ratio ${(wall / (c1.total / RATE)).toFixed(3)} (goal <= 1.10)`,
    );
  else console.log(`  wall ${wall.toFixed(1)} s (${(c1.total / wall).toFixed(0)} requests/s)`);
  console.log(`  429 answers: ${c1.rateLimited} (goal: none after the first)`);
  if (firstOutcome !== 'converged') failed = true;

  console.log(
    `  first run: peak RSS ${(peak / 2 ** 20).toFixed(0)} MB, peak V8 heap in use ${(peakHeap / 2 ** 20).toFixed(0)} MB`,
  );
  peakHeap = 0;
  const before = c1.total;
  const services2 = openServices(config, { logger: silentLogger });
  const t1 = performance.now();
  const secondOutcome = (await reconcile(services2.reconcileDeps, { command: 'bench', dryRun: false })).report.outcome;
  const wall2 = (performance.now() - t1) / 1000;
  await services2.close();
  const c2 = await counters(sandbox.url);
  const pages =
    Math.ceil(shape.accounts / PER_PAGE) + Math.ceil(shape.items / PER_PAGE) + Math.ceil(shape.topups / PER_PAGE);
  // A new process starts with a full bucket while the server's may still be drained by the run before:
  // its 429s are counted apart (each is retried after Retry-After), the rest must be list pages only.
  const limited = c2.rateLimited - c1.rateLimited;
  const noop = c2.total - before - limited;
  console.log(
    `  no-op reconcile: ${noop} requests answered, list pages ${pages} (goal: equal), plus ${limited} answered 429; ${wall2.toFixed(1)} s, outcome ${secondOutcome}`,
  );
  if (noop !== pages) {
    failed = true;
    const diff: Record<string, Record<string, number>> = {};
    for (const [route, byStatus] of Object.entries(c2.byRoute))
      for (const [status, n] of Object.entries(byStatus)) {
        const d = n - (c1.byRoute[route]?.[status] ?? 0);
        if (d > 0) (diff[route] ??= {})[status] = d;
      }
    console.log(`  no-op requests by route and status: ${JSON.stringify(diff)}`);
  }
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  console.log(
    `  peak RSS of the reconciling process: ${(peak / 2 ** 20).toFixed(0)} MB (peak V8 heap in use ${(peakHeap / 2 ** 20).toFixed(0)} MB)`,
  );
} finally {
  sandbox.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
