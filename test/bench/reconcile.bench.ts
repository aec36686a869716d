// Reconcile with the default configuration (rateLimit.ratePerSec: auto) into an empty sandbox in its own
// process on 127.0.0.1, limited to R requests/s, then an edit run (5% changed, 2% removed), then a no-op run.
// Prints for each run the requests against the fair minimum (goal 1.00) and the 429 answers; for the first
// sync also wall / (requests / R) (goal <= 1.10) and the peak RSS of this process.
//   BENCH_OFFERS   default 10000
//   BENCH_RATE     the sandbox's limit, default 50 (0 = unlimited)
//   BENCH_HEADERS  how the sandbox tells its limit: x-ratelimit (default), ietf, none
//   BENCH_COUNTS_ONLY=1  bulk answers carry counts only
//   BENCH_CLIENT_RATE / BENCH_CLIENT_BURST  a configured rate instead of auto
//   BENCH_LIVE=1   GC before each memory sample: the live set
//   npm run bench reconcile
//   BENCH_HEADERS=none npm run bench reconcile
//   BENCH_RATE=0 BENCH_COUNTS_ONLY=1 npm run bench reconcile
//   BENCH_OFFERS=100000 BENCH_RATE=0 npm run bench reconcile     (the memory figure for 100k offers)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openServices } from '../../src/cli/services.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { reconcile } from '../../src/sync/reconciler.ts';
import { CLI } from '../support/cli.ts';
import { makePng } from '../support/png.ts';

const N = Number(process.env.BENCH_OFFERS ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const HEADERS = process.env.BENCH_HEADERS ?? 'x-ratelimit';
const COUNTS_ONLY = process.env.BENCH_COUNTS_ONLY === '1';
const BURST = RATE > 0 ? Math.max(1, Math.round(RATE / 5)) : 1000;
const KEY = 'bench-key-42';
const PER_PAGE = 100;
const BULK = 100;

/** A distinct 1x1 PNG per seed (up to 65536). */
function png(seed: number): Buffer {
  const c: [number, number, number] = [seed & 0xff, (seed >> 8) & 0xff, 0];
  return makePng(1, 1, c, c); // a 1x1 image is all stripe: give the stripe the colour too
}

type Kind = 'accounts' | 'items' | 'topups';
const kindOf = (i: number): Kind => (i % 3 === 0 ? 'accounts' : i % 3 === 1 ? 'items' : 'topups');
/** The edit run: every 20th offer (from 1) gets a new price, every 50th is removed; the two never meet. */
const changed = (i: number) => i % 20 === 1;
const removed = (i: number) => i % 50 === 0;

function writeCatalogue(dir: string, edited: boolean): Record<Kind, number> & { images: number } {
  for (const sub of ['accounts', 'items', 'top-ups', 'images']) mkdirSync(join(dir, sub), { recursive: true });
  const lines: Record<Kind, string[]> = { accounts: [], items: [], topups: [] };
  let images = 0;
  for (let i = 0; i < N; i++) {
    if (edited && removed(i)) continue;
    const bump = edited && changed(i) ? 7 : 0;
    const kind = kindOf(i);
    if (kind === 'accounts') {
      const withImage = i % 60 === 0; // 5% of accounts
      if (withImage && !edited) writeFileSync(join(dir, 'images', `a${i}.png`), png(images));
      if (withImage) images++;
      lines.accounts.push(
        JSON.stringify({
          external_id: `acc-${i}`,
          title: `Account ${i}`,
          price: 1000 + i + bump,
          rank: 'gold_2',
          level: 30,
          champions: ['Ahri'],
          ...(withImage ? { images: [`images/a${i}.png`] } : {}),
        }),
      );
    } else if (kind === 'items')
      lines.items.push(JSON.stringify({ external_id: `it-${i}`, title: `Item ${i}`, price: 100 + i + bump, stock: 1 }));
    else
      lines.topups.push(
        JSON.stringify({ external_id: `tu-${i}`, offer_title: `${i} gems`, price: 50 + i + bump, offer_amount: i }),
      );
  }
  writeFileSync(join(dir, 'accounts', 'a.ndjson'), lines.accounts.join('\n'));
  writeFileSync(join(dir, 'items', 'i.ndjson'), lines.items.join('\n'));
  writeFileSync(join(dir, 'top-ups', 't.ndjson'), lines.topups.join('\n'));
  return { accounts: lines.accounts.length, items: lines.items.length, topups: lines.topups.length, images };
}

/** The fewest requests the edit run can make: list pages, one PATCH per changed account and item, top-up changes
 * and archives at the bulk size, account archives at the bulk size, one PATCH per archived item, and the two probes
 * that find the item bulk routes (bulk-update, bulk-remove) not served by this sandbox. */
function editMinimum(pages: number): { minimum: number; changes: number; removals: number } {
  const count = (pred: (i: number) => boolean, k: Kind) => {
    let n = 0;
    for (let i = 0; i < N; i++) if (pred(i) && kindOf(i) === k) n++;
    return n;
  };
  const bulk = (n: number) => Math.ceil(n / BULK);
  const minimum =
    pages +
    count(changed, 'accounts') +
    count(changed, 'items') +
    bulk(count(changed, 'topups')) +
    bulk(count(removed, 'accounts')) +
    count(removed, 'items') +
    bulk(count(removed, 'topups')) +
    2;
  let changes = 0;
  let removals = 0;
  for (let i = 0; i < N; i++) {
    if (changed(i)) changes++;
    if (removed(i)) removals++;
  }
  return { minimum, changes, removals };
}

async function startSandboxProcess(): Promise<{ url: string; stop: () => void }> {
  const args = [...CLI, 'sandbox', '--port', '0', '--api-key', KEY];
  if (RATE > 0) args.push('--rate', String(RATE), '--burst', String(BURST), '--rate-headers', HEADERS);
  if (COUNTS_ONLY) args.push('--bulk-counts-only');
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

interface Counters {
  total: number;
  rateLimited: number;
  byRoute: Record<string, Record<string, number>>;
}

async function counters(url: string): Promise<Counters> {
  return (await fetch(`${url}/__sandbox/counters`)).json() as Promise<Counters>;
}

function byRouteSince(before: Counters, after: Counters): Record<string, Record<string, number>> {
  const diff: Record<string, Record<string, number>> = {};
  for (const [route, byStatus] of Object.entries(after.byRoute))
    for (const [status, n] of Object.entries(byStatus)) {
      const d = n - (before.byRoute[route]?.[status] ?? 0);
      if (d > 0) {
        diff[route] ??= {};
        diff[route][status] = d;
      }
    }
  return diff;
}

const work = mkdtempSync(join(tmpdir(), 'offersync-bench-'));
const sandbox = await startSandboxProcess();
let failed = false;
try {
  const catalogue = join(work, 'catalogue');
  const shape = writeCatalogue(catalogue, false);
  const clientRate = process.env.BENCH_CLIENT_RATE;
  const base = loadConfig({
    env: {},
    cwd: work,
    flags: { catalogue, state: join(work, 'state.db'), baseUrl: sandbox.url },
    overrides: {
      // The default configuration (ratePerSec: auto), unless told otherwise; unlimited runs need no pacing.
      ...(clientRate !== undefined || RATE === 0
        ? {
            rateLimit: {
              ratePerSec: RATE === 0 ? 100_000 : Number(clientRate),
              burst: Number(process.env.BENCH_CLIENT_BURST ?? (RATE === 0 ? 1000 : Math.max(1, BURST - 2))),
              concurrency: 16,
            },
          }
        : {}),
      lists: { perPage: PER_PAGE },
      bulk: { removeSize: BULK, topUpUpdateSize: BULK, itemUpdateSize: BULK },
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
  const runOnce = async () => {
    const services = await openServices(config, { logger: silentLogger });
    const t0 = performance.now();
    // Only the outcome is kept: holding the whole result (plan, catalogue, outcomes) would count twice below.
    const outcome = (await reconcile(services.reconcileDeps, { command: 'bench', dryRun: false })).report.outcome;
    const wall = (performance.now() - t0) / 1000;
    const rate = services.queue.stats();
    await services.close();
    return { outcome, wall, rate };
  };

  const limit =
    RATE > 0
      ? `limited to ${RATE} req/s (burst ${BURST}, ${HEADERS === 'none' ? 'not advertised' : `advertised: ${HEADERS}`})`
      : 'unlimited';
  const config_ =
    clientRate !== undefined ? `ratePerSec ${clientRate}` : RATE > 0 ? 'the default configuration' : 'no pacing';
  console.log(
    `reconcile ${N} offers (${shape.accounts} accounts, ${shape.items} items, ${shape.topups} top-ups, ` +
      `${shape.images} images), ${config_}, sandbox ${limit}${COUNTS_ONLY ? ', bulk answers with counts only' : ''}:`,
  );
  const first = await runOnce();
  const c1 = await counters(sandbox.url);
  const minimum = 3 /* one page per empty list */ + N + shape.images;
  console.log(
    `  first sync: outcome ${first.outcome}; requests ${c1.total}, fair minimum ${minimum}: ratio ` +
      `${(c1.total / minimum).toFixed(3)} (goal 1.00)`,
  );
  if (RATE > 0)
    console.log(
      `    wall ${first.wall.toFixed(1)} s; requests/R ${(c1.total / RATE).toFixed(1)} s: ratio ` +
        `${(first.wall / (c1.total / RATE)).toFixed(3)} (goal <= 1.10); 429 answers: ${c1.rateLimited} (goal <= ` +
        `${HEADERS === 'none' ? 5 : 1}); rate at the end ${first.rate.currentRate.toFixed(1)}/s (advertised ` +
        `${first.rate.advertisedRate ?? '-'}, hold ${first.rate.holdRate?.toFixed(1) ?? '-'})`,
    );
  else console.log(`    wall ${first.wall.toFixed(1)} s (${(c1.total / first.wall).toFixed(0)} requests/s)`);
  if (first.outcome !== 'converged') failed = true;
  console.log(
    `    peak RSS ${(peak / 2 ** 20).toFixed(0)} MB, peak V8 heap in use ${(peakHeap / 2 ** 20).toFixed(0)} MB`,
  );

  const pages =
    Math.ceil(shape.accounts / PER_PAGE) + Math.ceil(shape.items / PER_PAGE) + Math.ceil(shape.topups / PER_PAGE);
  writeCatalogue(catalogue, true);
  const edit = editMinimum(pages);
  const second = await runOnce();
  const c2 = await counters(sandbox.url);
  const editLimited = c2.rateLimited - c1.rateLimited;
  const editRequests = c2.total - c1.total - editLimited;
  console.log(
    `  edit run (${edit.changes} changed, ${edit.removals} removed): outcome ${second.outcome}; requests ` +
      `${editRequests} answered, fair minimum ${edit.minimum}: ratio ${(editRequests / edit.minimum).toFixed(3)} ` +
      `(goal 1.00); plus ${editLimited} answered 429; ${second.wall.toFixed(1)} s`,
  );
  if (second.outcome !== 'converged' || editRequests !== edit.minimum) {
    failed = true;
    console.log(`    by route and status: ${JSON.stringify(byRouteSince(c1, c2))}`);
  }

  const third = await runOnce();
  const c3 = await counters(sandbox.url);
  const noopLimited = c3.rateLimited - c2.rateLimited;
  const noop = c3.total - c2.total - noopLimited;
  console.log(
    `  no-op run: ${noop} requests answered, list pages ${pages} (goal: equal), plus ${noopLimited} answered 429; ` +
      `${third.wall.toFixed(1)} s, outcome ${third.outcome}`,
  );
  if (noop !== pages) {
    failed = true;
    console.log(`    by route and status: ${JSON.stringify(byRouteSince(c2, c3))}`);
  }
  clearInterval(sampler);
} finally {
  sandbox.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
