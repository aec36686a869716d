// Money first across runs: a price change and a removal saved while the daemon works through a backlog of creates
// reach the marketplace before that backlog ends, each written once (docs/architecture.md, Money first). The sandbox
// runs in this process on 127.0.0.1 with a rate limit, and the client keeps to it, so the backlog is real.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { watchCatalogue } from '../../src/catalogue/watcher.ts';
import { openServices } from '../../src/cli/services.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { Daemon } from '../../src/daemon/daemon.ts';
import { StatusBoard } from '../../src/status/status-board.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { REAL_SERVER_SWITCHES_BULK } from '../../src/sandbox/real-server-bulk.ts';
import { REAL_SERVER_SWITCHES_ACCOUNTS, type SandboxOptions } from '../../src/sandbox/sandbox-options.ts';
import { startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { requestsByRoute } from '../support/harness.ts';
import { until } from '../support/until.ts';

const KEY = 'money-first-key';
/** 20 requests/s: the backlog of 60 creates (with their look-ups) takes some seconds, the changes a few requests. */
const RATE = 20;
const BACKLOG = 60;

/** The API document's marketplace, and one with the real server's switches on (its bulk routes and answers). */
const SERVERS: readonly [string, SandboxOptions][] = [
  ['the document', {}],
  [
    'the real server',
    {
      representation: {
        ...REAL_SERVER_SWITCHES_ACCOUNTS.representation,
        ...REAL_SERVER_SWITCHES_BULK.representation,
      },
      bulk: { ...REAL_SERVER_SWITCHES_BULK.bulk, undocumented: true },
    },
  ],
];

async function setUp(t: TestContext, planChangesAtOnce: boolean, server: SandboxOptions = {}) {
  const sandbox = await startSandbox({ ...server, apiKeys: [KEY], rateLimit: { ratePerSec: RATE, burst: RATE } });
  const work = mkdtempSync(join(tmpdir(), 'offersync-money-first-'));
  const cat = join(work, 'catalogue');
  for (const sub of ['accounts', 'items', 'top-ups']) mkdirSync(join(cat, sub), { recursive: true });
  const write = (file: string, items: readonly { external_id: string; title: string; price: number }[]) =>
    writeFileSync(join(cat, 'items', file), JSON.stringify(items));
  const shop = (pricey: number, withSoldOut: boolean) =>
    write('shop.json', [
      { external_id: 'pricey', title: 'Pricey sword', price: pricey },
      ...(withSoldOut ? [{ external_id: 'sold-out', title: 'Sold-out shield', price: 700 }] : []),
      { external_id: 'steady', title: 'Steady helm', price: 300 },
    ]);
  shop(1000, true);
  const base = loadConfig({
    env: {},
    cwd: work,
    flags: { catalogue: cat, state: join(work, 'state.db'), baseUrl: sandbox.url },
    overrides: { rateLimit: { ratePerSec: RATE, burst: 1 }, log: { level: 'silent' } },
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
    planChangesAtOnce,
    status: {
      board: new StatusBoard(services.store, services.sales, { name: null, id: 'default' }),
      queue: () => services.queue.stats(),
    },
  });
  t.onTestFinished(async () => {
    await daemon.stop();
    await services.close();
    await sandbox.close();
    rmSync(work, { recursive: true, force: true });
  });
  await daemon.start();
  const items = () => sandbox.dump().items;
  const item = (id: string) => items().find((i) => i.external_id === id);
  const backlogDone = () => items().filter((i) => String(i.external_id).startsWith('new-')).length;
  return { sandbox, daemon, write, shop, item, backlogDone };
}

/** Saves a backlog of creates, waits until it is under way, then saves a price change and a removal. */
async function changeDuringBacklog(t: Awaited<ReturnType<typeof setUp>>) {
  t.write(
    'new.json',
    Array.from({ length: BACKLOG }, (_, i) => ({ external_id: `new-${i}`, title: `New ${i}`, price: 100 + i })),
  );
  await until('the backlog under way', () => t.backlogDone() >= 5, 30_000, 10);
  const page = (await t.daemon.statusPage()) ?? '';
  t.sandbox.resetCounters();
  const before = t.backlogDone();
  t.shop(1500, false);
  // Polled often: what matters is how much of the backlog was done when both changes had landed.
  return until(
    'the price and the archive on the marketplace',
    () =>
      t.item('pricey')?.price === 1500 && t.item('sold-out')?.status === 'archived'
        ? { created: t.backlogDone(), before, page }
        : false,
    60_000,
    5,
  );
}

// Each test waits on its own sandbox's rate limit, most of it idle: they run at once.
describe.concurrent('daemon: money first', () => {
  it.for(SERVERS)(
    'against %s: a price change and a removal saved during a backlog of creates go before it ends, once each',
    async ([, server], ctx) => {
      const t = await setUp(ctx, true, server);
      const { created, before, page } = await changeDuringBacklog(t);
      expect(created).toBeLessThan(BACKLOG);
      // The status page, mid-run: the writes the run has left and their time at the queue's rate.
      expect(page).toMatch(/A run is going on now: [\d,]+ writes? left, about \d+ (s|min)/);
      await t.daemon.idle();
      expect(t.backlogDone()).toBe(BACKLOG);
      // Each offer written once: one PATCH for the price, one for the archive, one create per new item, and the run
      // folded after the working one finds nothing left to do for them.
      const routes = requestsByRoute(t.sandbox);
      expect(routes['PATCH /api/v1/items/{identifier}']).toBe(2);
      expect(routes['POST /api/v1/items']).toBeLessThanOrEqual(BACKLOG - before + 1);
      const externalIds = t.sandbox.dump().items.map((i) => i.external_id);
      expect(new Set(externalIds).size).toBe(externalIds.length);
      expect(t.item('steady')).toMatchObject({ price: 300, status: 'listed' });
    },
  );

  it('an offer the backlog queued, changed: the newest plan writes it last, one create, no copy', async (ctx) => {
    const t = await setUp(ctx, true);
    const last = BACKLOG - 1;
    const backlog = (lastPrice: number) =>
      Array.from({ length: BACKLOG }, (_, i) => ({
        external_id: `new-${i}`,
        title: `New ${i}`,
        price: i === last ? lastPrice : 100 + i,
      }));
    t.write('new.json', backlog(100 + last));
    await until('the backlog under way', () => t.backlogDone() >= 5, 30_000, 10);
    t.sandbox.resetCounters();
    const before = t.backlogDone();
    t.write('new.json', backlog(9_999));
    await t.daemon.idle();
    const copies = t.sandbox.dump().items.filter((i) => i.external_id === `new-${last}`);
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatchObject({ price: 9_999, status: 'listed' });
    // The backlog's create and the newer plan's never both create it: at most one create per new item.
    expect(requestsByRoute(t.sandbox)['POST /api/v1/items']).toBeLessThanOrEqual(BACKLOG - before);
    expect(t.backlogDone()).toBe(BACKLOG);
  });

  it('folded into the next run (planChangesAtOnce false), the same changes wait for the whole backlog', async (ctx) => {
    const t = await setUp(ctx, false);
    const { created } = await changeDuringBacklog(t);
    expect(created).toBe(BACKLOG);
  });
});
