// A seller's daily repricing: 10,000 offers (accounts, items, top-ups, a third each), every price changed, against
// a sandbox in this process on 127.0.0.1 under each bulk switch (the undocumented routes absent; served with the
// documented key; with another key named only in its 422; with batch limits of 100 and 250; count-only
// answers). Prints the repricing run's requests against the minimum those routes allow: list pages + accounts
// one by one + ceil(items / batch) + ceil(top-ups / batch) + the probes a refusal costs. Goal: at most 1.02 of
// it with bulk routes served, and no more than before they were probed without them.
//   BENCH_OFFERS   default 10000
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openServices } from '../../src/cli/services.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { type SandboxOptions, startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { reconcile } from '../../src/sync/reconciler.ts';

const N = Number(process.env.BENCH_OFFERS ?? 10_000);
const KEY = 'repricing-bench-key';
const PER_PAGE = 100;

interface Switch {
  readonly name: string;
  readonly sandbox: SandboxOptions;
  /** Offers per bulk-update call offersync is configured to send. */
  readonly size: number;
  /** Offers per bulk call the routes allow; null: items go one by one. */
  readonly batch: number | null;
  /** Refused requests no client can avoid: the probes. */
  readonly probes: number;
}

const SWITCHES: readonly Switch[] = [
  { name: 'bulk routes absent (documented ones only)', sandbox: {}, size: 100, batch: null, probes: 1 },
  { name: 'served, documented key', sandbox: { bulk: { undocumented: true } }, size: 100, batch: 100, probes: 0 },
  {
    name: 'served, key named only in the 422',
    sandbox: { bulk: { undocumented: true, updateKey: 'items' } },
    size: 100,
    batch: 100,
    probes: 2,
  },
  {
    name: 'served, limit 100 (sends 1000)',
    sandbox: { bulk: { undocumented: true, limit: 100 } },
    size: 1000,
    batch: 100,
    probes: 2,
  },
  {
    name: 'served, limit 250 (sends 1000)',
    sandbox: { bulk: { undocumented: true, limit: 250 } },
    size: 1000,
    batch: 250,
    probes: 2,
  },
  {
    name: 'served, count-only answers',
    sandbox: { bulk: { undocumented: true }, representation: { bulkCountsOnly: true } },
    size: 100,
    batch: 100,
    probes: 0,
  },
];

type Kind = 'accounts' | 'items' | 'topups';
const kindOf = (i: number): Kind => (i % 3 === 0 ? 'accounts' : i % 3 === 1 ? 'items' : 'topups');

function writeCatalogue(dir: string, bump: number): Record<Kind, number> {
  for (const sub of ['accounts', 'items', 'top-ups']) mkdirSync(join(dir, sub), { recursive: true });
  const lines: Record<Kind, string[]> = { accounts: [], items: [], topups: [] };
  for (let i = 0; i < N; i++) {
    const kind = kindOf(i);
    if (kind === 'accounts')
      lines.accounts.push(
        JSON.stringify({ external_id: `acc-${i}`, title: `Account ${i}`, price: 1000 + i + bump, level: 30 }),
      );
    else if (kind === 'items')
      lines.items.push(JSON.stringify({ external_id: `it-${i}`, title: `Item ${i}`, price: 100 + i + bump, stock: 1 }));
    else
      lines.topups.push(
        JSON.stringify({ external_id: `tu-${i}`, offer_title: `${i} gems`, price: 50 + i + bump, offer_amount: i }),
      );
  }
  writeFileSync(join(dir, 'accounts', 'a.ndjson'), lines.accounts.join('\n'));
  writeFileSync(join(dir, 'items', 'i.ndjson'), lines.items.join('\n'));
  writeFileSync(join(dir, 'top-ups', 't.ndjson'), lines.topups.join('\n'));
  return { accounts: lines.accounts.length, items: lines.items.length, topups: lines.topups.length };
}

const pages = (n: number) => Math.max(1, Math.ceil(n / PER_PAGE));

async function reprice(s: Switch, work: string): Promise<{ requests: number; minimum: number; before: number }> {
  const sandbox = await startSandbox({ apiKeys: [KEY], ...s.sandbox });
  const dir = mkdtempSync(join(work, 'run-'));
  const catalogue = join(dir, 'catalogue');
  const shape = writeCatalogue(catalogue, 0);
  const base = loadConfig({
    env: {},
    cwd: dir,
    flags: { catalogue, state: join(dir, 'state.db'), baseUrl: sandbox.url },
    overrides: {
      rateLimit: { ratePerSec: 100_000, burst: 1000, concurrency: 16 },
      lists: { perPage: PER_PAGE },
      bulk: { removeSize: 100, topUpUpdateSize: s.size, itemUpdateSize: s.size },
      log: { level: 'silent' },
    },
  });
  const run = async () => {
    const services = await openServices({ ...base, apiKey: KEY }, { logger: silentLogger });
    try {
      return (await reconcile(services.reconcileDeps, { command: 'bench', dryRun: false })).report.outcome;
    } finally {
      await services.close();
    }
  };
  try {
    if ((await run()) !== 'converged') throw new Error(`${s.name}: the first sync did not converge`);
    writeCatalogue(catalogue, 7);
    sandbox.resetCounters();
    const outcome = await run();
    const requests = sandbox.counters().total;
    const dump = sandbox.dump();
    const wrong = [...dump.accounts, ...dump.items, ...dump.topUps].filter((o) => {
      const i = Number(String(o.external_id).split('-')[1]);
      const base = kindOf(i) === 'accounts' ? 1000 : kindOf(i) === 'items' ? 100 : 50;
      return o.price !== base + i + 7;
    });
    if (outcome !== 'converged' || wrong.length > 0)
      throw new Error(`${s.name}: outcome ${outcome}, ${wrong.length} offers not repriced`);
    const listPages = pages(shape.accounts) + pages(shape.items) + pages(shape.topups);
    const items = s.batch === null ? shape.items : Math.ceil(shape.items / s.batch);
    const topUps = Math.ceil(shape.topups / (s.batch ?? 100));
    // Before the undocumented routes were probed: items one by one, top-ups by the documented bulk-update.
    const before = listPages + shape.accounts + shape.items + Math.ceil(shape.topups / s.size);
    return { requests, minimum: listPages + shape.accounts + items + topUps + s.probes, before };
  } finally {
    await sandbox.close();
  }
}

const work = mkdtempSync(join(tmpdir(), 'offersync-repricing-bench-'));
let failed = false;
try {
  console.log(`repricing ${N} offers (a third each accounts, items, top-ups), every price changed:`);
  for (const s of SWITCHES) {
    const t0 = performance.now();
    const r = await reprice(s, work);
    const ratio = r.requests / r.minimum;
    const served = s.batch !== null;
    const goal = served ? 'goal <= 1.02' : `goal: no more than before, ${r.before} + ${s.probes} probe`;
    console.log(
      `  ${s.name}: ${r.requests} requests, minimum ${r.minimum}: ratio ${ratio.toFixed(3)} (${goal}); ` +
        `${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    if (served ? ratio > 1.02 : r.requests > r.before + s.probes) failed = true;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
