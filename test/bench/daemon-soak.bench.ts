import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openServices } from '../../src/cli/services.ts';
import { favourMemoryOverSpeed } from '../../src/cli/v8-memory.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { Daemon, type FileChanges, type FileWatcher } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startSandboxProcess } from '../support/sandbox-process.ts';

const OFFERS = Number(process.env.BENCH_OFFERS ?? 300);
const KEEP_RUNS = 50;
const KEY = 'bench-soak-key';
const NEVER = '0 0 1 1 *'; // the bench triggers every run itself
if (typeof global.gc !== 'function') throw new Error('run through npm run bench (node --expose-gc)');
// The V8 settings of the process as it ships (entry.ts): without them Node 24 grows the young generation from 64 to
// 128 MB of semi-space midway, a one-time step of 50 MB RSS that says nothing about the daemon.
favourMemoryOverSpeed();

type Kind = 'account' | 'item' | 'topup';
const KINDS: readonly Kind[] = ['account', 'item', 'topup'];
const FILES_PER_KIND = 5;
const FOLDER: Readonly<Record<Kind, string>> = { account: 'accounts', item: 'items', topup: 'top-ups' };

let seed = 4242;
const random = (): number => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(a: readonly T[]): T => a[Math.floor(random() * a.length)]!;

/** A watcher the bench drives: each run is one batch of the files it rewrote. */
class BenchWatcher implements FileWatcher {
  readonly ready = Promise.resolve();
  private batch: ((c: FileChanges) => void) | undefined;
  on(event: 'batch' | 'error', fn: ((c: FileChanges) => void) | ((e: Error) => void)): void {
    if (event === 'batch') this.batch = fn as (c: FileChanges) => void;
  }
  emit(changed: string[]): void {
    this.batch?.({ added: [], changed, removed: [] });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const work = mkdtempSync(join(tmpdir(), 'offersync-bench-soak-'));
const catDir = join(work, 'catalogue');
const statePath = join(work, 'state', 'state.db');
const sandbox = await startSandboxProcess(KEY, 60_000);
let failed = false;

// The catalogue: a fixed pool of external_ids per kind; at any time some are out (removed, then put back).
// Sold offers leave the catalogue for good and a fresh id takes their place, as a seller would do.
interface Offer {
  id: string;
  price: number;
  out: boolean;
}
const offers: Record<Kind, Offer[][]> = { account: [], item: [], topup: [] };
let fresh = 0;
for (const kind of KINDS) {
  for (let f = 0; f < FILES_PER_KIND; f++) offers[kind].push([]);
  for (let i = 0; i < OFFERS / 3; i++)
    offers[kind][i % FILES_PER_KIND]!.push({ id: `${kind}-${fresh++}`, price: 100 + i, out: false });
}
const fileOf = (kind: Kind, f: number): string => `${FOLDER[kind]}/f${f}.ndjson`;
function save(kind: Kind, f: number): string {
  const rel = fileOf(kind, f);
  const lines = offers[kind]
    [f]!.filter((o) => !o.out)
    .map((o) =>
      JSON.stringify(
        kind === 'topup'
          ? { external_id: o.id, offer_title: `${o.id} gems`, price: o.price, offer_amount: 10 }
          : { external_id: o.id, title: `Offer ${o.id}`, price: o.price, ...(kind === 'item' ? { stock: 3 } : {}) },
      ),
    );
  writeFileSync(join(catDir, rel), `${lines.join('\n')}\n`);
  return rel;
}
for (const kind of KINDS) {
  mkdirSync(join(catDir, FOLDER[kind]), { recursive: true });
  for (let f = 0; f < FILES_PER_KIND; f++) save(kind, f);
}

const config = {
  ...loadConfig({
    env: {},
    cwd: work,
    flags: { catalogue: catDir, state: statePath, baseUrl: sandbox.url },
    overrides: {
      rateLimit: { ratePerSec: 100_000, burst: 1000, concurrency: 16 },
      state: { keepRuns: KEEP_RUNS },
      log: { level: 'silent' },
    },
  }),
  apiKey: KEY,
};
const services = await openServices(config, { logger: silentLogger });
const watcher = new BenchWatcher();
const daemon = new Daemon({
  deps: services.reconcileDeps,
  store: services.store,
  catalogue: services.catalogue,
  watch: () => watcher,
  logger: silentLogger,
  fullSweep: NEVER,
  tick: NEVER,
  health: null,
  leaseTtlMs: config.state.leaseTtlMs,
});

interface Sample {
  run: number;
  rss: number;
  heap: number;
  dbBytes: number;
  runs: number;
  journal: number;
  offers: number;
}
const samples: Sample[] = [];
/** Runs before the figures count: the JIT and the allocator settle over the first few hundred runs. */
const WARM_UP = 300;
const RUNS = WARM_UP + Number(process.env.BENCH_RUNS ?? 1000);
/** Least-squares line through (run, bytes): its rise from the first run to the last, in % of its start. */
function trendPercent(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const x0 = points[0]?.[0] ?? 0;
  const x1 = points[n - 1]?.[0] ?? 0;
  const start = my + slope * (x0 - mx);
  return ((slope * (x1 - x0)) / start) * 100;
}
const mb = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MB`;
function dbFigures(): Pick<Sample, 'dbBytes' | 'runs' | 'journal' | 'offers'> {
  const size = (p: string): number => statSync(p, { throwIfNoEntry: false })?.size ?? 0;
  const db = new BetterSqlite3(statePath, { readonly: true });
  try {
    const count = (t: string): number => (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    return {
      dbBytes: size(statePath) + size(`${statePath}-wal`),
      runs: count('runs'),
      journal: count('journal'),
      offers: count('offers'),
    };
  } finally {
    db.close();
  }
}

const control = async (path: string, body: unknown): Promise<void> => {
  const res = await fetch(`${sandbox.url}/__sandbox/${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`sandbox ${path}: ${res.status} ${await res.text()}`);
};

const counts = { edits: 0, removals: 0, returns: 0, sales: 0, fullSweeps: 0, notConverged: 0 };
try {
  const t0 = performance.now();
  await daemon.start(); // run 1: the first full sweep creates every offer
  for (let run = 2; run <= RUNS; run++) {
    const touched = new Set<string>();
    const file = (kind: Kind, f: number): void => void touched.add(`${kind}:${f}`);
    for (let e = 0; e < 5; e++) {
      const kind = pick(KINDS);
      const f = Math.floor(random() * FILES_PER_KIND);
      const o = pick(offers[kind][f]!);
      // Within a factor of 3 of the last price: a bigger jump on many offers at once is the price guard's to stop.
      o.price = Math.max(100, Math.round(o.price * (0.5 + random() * 1.5)));
      file(kind, f);
      counts.edits++;
    }
    if (run % 10 === 0) {
      // One offer out, one that was out back in (relisted).
      const kind = pick(KINDS);
      const f = Math.floor(random() * FILES_PER_KIND);
      const list = offers[kind][f]!;
      const back = list.find((o) => o.out);
      if (back) {
        back.out = false;
        counts.returns++;
      }
      const gone = pick(list.filter((o) => !o.out));
      gone.out = true;
      counts.removals++;
      file(kind, f);
    }
    if (run % 25 === 0) {
      // A sale: the seller takes the sold account out of the catalogue and lists a new one.
      const f = Math.floor(random() * FILES_PER_KIND);
      const list = offers.account[f]!;
      const sold = pick(list.filter((o) => !o.out));
      await control('status', { kind: 'accounts', identifier: sold.id, status: 'sold' });
      list.splice(list.indexOf(sold), 1);
      list.push({ id: `account-${fresh++}`, price: 500, out: false });
      counts.sales++;
      file('account', f);
    }
    for (const t of touched) {
      const [kind, f] = t.split(':') as [Kind, string];
      save(kind, Number(f));
    }
    if (run % 20 === 0) {
      daemon.trigger('full', 'sweep');
      counts.fullSweeps++;
    } else watcher.emit([...touched].map((t) => fileOf(t.split(':')[0] as Kind, Number(t.split(':')[1]))));
    await daemon.idle();
    const health = daemon.health();
    if (!health.ready) throw new Error(`run ${run}: the daemon is not ready: ${JSON.stringify(health.detail)}`);
    if (health.detail.last_outcome !== 'converged') counts.notConverged++;
    if (run % 50 === 0) {
      global.gc!();
      global.gc!();
      const m = process.memoryUsage();
      samples.push({ run, rss: m.rss, heap: m.heapUsed, ...dbFigures() });
      const s = samples[samples.length - 1]!;
      if (run % 100 === 0)
        console.log(
          `  run ${String(run).padStart(4)}: RSS ${mb(s.rss)}, heap ${mb(s.heap)}; ` +
            `state db ${mb(s.dbBytes)} (runs ${s.runs}, journal ${s.journal}, offers ${s.offers}); ` +
            `${((performance.now() - t0) / 1000).toFixed(0)} s`,
        );
    }
  }
  console.log(`daemon soak: ${RUNS} runs of ${OFFERS} offers, ${JSON.stringify(counts)}`);
  if (counts.notConverged > 0) failed = true;
  const first = samples.find((s) => s.run === WARM_UP);
  const end = samples[samples.length - 1];
  if (first && end && end !== first) {
    const growth = (a: number, b: number): number => ((b - a) / a) * 100;
    // The trend, not two points: one sample moves by a few MB with where the young generation and malloc stand.
    const warm = samples.filter((s) => s.run >= WARM_UP);
    const rssTrend = trendPercent(warm.map((s) => [s.run, s.rss]));
    const heapTrend = trendPercent(warm.map((s) => [s.run, s.heap]));
    console.log(
      `  growth from run ${first.run} to run ${end.run}, on the trend of ${warm.length} samples: ` +
        `RSS ${rssTrend.toFixed(1)}%, heap ${heapTrend.toFixed(1)}% (goal < 5% each); first to last sample: ` +
        `RSS ${growth(first.rss, end.rss).toFixed(1)}% (${mb(first.rss)} -> ${mb(end.rss)}), ` +
        `heap ${growth(first.heap, end.heap).toFixed(1)}% (${mb(first.heap)} -> ${mb(end.heap)})`,
    );
    console.log(
      `  state db: ${mb(first.dbBytes)} -> ${mb(end.dbBytes)}; runs kept ${end.runs} (state.keepRuns ${KEEP_RUNS}); ` +
        `journal ${first.journal} -> ${end.journal}; offer rows ${first.offers} -> ${end.offers}`,
    );
    if (rssTrend >= 5 || heapTrend >= 5) failed = true;
    if (end.runs > KEEP_RUNS) failed = true;
  }
} finally {
  await daemon.stop();
  await services.close();
  sandbox.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
