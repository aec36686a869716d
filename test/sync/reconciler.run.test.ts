// The reconciler's own bookkeeping around plan and execute: a marketplace it cannot read, a dry run, a plan a
// saved-plan check refuses, the run history, where incremental reads start, the catalogue's failures in the report
// and the request count. Against the sandbox, wired as the CLI wires it.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openServices } from '../../src/cli/services.ts';
import { ServerError } from '../../src/marketplace/marketplace-errors.ts';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { readGuardStop } from '../../src/sync/plan/guard-stop.ts';
import { MarketplaceUnreadableError, reconcile } from '../../src/sync/reconciler.ts';
import { mapListPages, overrideMethod } from '../support/client-override.ts';
import { createHarness, type Harness, requestsByRoute } from '../support/harness.ts';
import { pastCutoffSlack } from '../support/cutoff-slack.ts';
import { captureLog } from '../support/log-capture.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const items = (n: number, price = 100) =>
  JSON.stringify(
    Array.from({ length: n }, (_, i) => ({ external_id: `it-${i}`, title: `Item ${i}`, price: price + i })),
  );
/** Requests the sandbox answered since its counters were last reset. */
const requestsSent = (harness: Harness): number =>
  Object.values(harness.sandbox.counters().byRoute).reduce(
    (n, byStatus) => n + Object.values(byStatus).reduce((a, b) => a + b, 0),
    0,
  );

async function withStore<T>(
  harness: Harness,
  fn: (store: Awaited<ReturnType<typeof openStateStore>>) => Promise<T>,
): Promise<T> {
  mkdirSync(dirname(harness.statePath), { recursive: true });
  const store = await openStateStore(harness.statePath);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

describe('reconcile: the run around the plan', () => {
  it('stops before planning when no list can be read, saying why and that nothing was sent', async () => {
    h = await createHarness();
    h.write('items/a.json', items(2));
    h.config = { ...h.config, apiKey: 'not-the-key' };
    const run = h.reconcile();
    await expect(run).rejects.toThrow(MarketplaceUnreadableError);
    // The name is what a log line or a JSON error shows of it.
    await expect(run).rejects.toMatchObject({ name: 'MarketplaceUnreadableError' });
    await expect(run).rejects.toThrow(/^cannot read the marketplace's offer lists \(.*401.*\); nothing was sent$/);
    expect(h.writes()).toBe(0);
  });

  it('a dry run plans and sends nothing, records no run, and leaves the journal for the next real run', async () => {
    h = await createHarness();
    h.write('items/a.json', items(2));
    h.write('accounts/a.json', JSON.stringify([{ external_id: 'ac-0', title: 'Account 0', price: 900 }]));
    await withStore(h, async (s) => {
      const e = await s.journalBegin({ runId: 'crashed', op: 'create', kind: 'item', keys: ['it-0'] });
      await s.journalSet(e.id, 'sent');
      // A re-create cut off between its archive and its create: looked up first too.
      const r = await s.journalBegin({ runId: 'crashed', op: 'recreate', kind: 'account', keys: ['ac-0'] });
      await s.journalSet(r.id, 'sent');
      // An update cut off is no create: nothing to look up before creating it-1.
      const u = await s.journalBegin({ runId: 'crashed', op: 'update', kind: 'item', keys: ['it-1'] });
      await s.journalSet(u.id, 'sent');
    });
    const { report, plan } = await h.reconcile({ dryRun: true });
    expect(plan.actions.find((a) => a.type === 'create' && a.externalId === 'ac-0')).toMatchObject({
      verifyFirst: true,
    });
    expect(report.outcome).toBe('planned');
    expect(h.writes()).toBe(0);
    // The interrupted create is looked up first, not assumed new.
    expect(plan.actions.find((a) => a.type === 'create' && a.externalId === 'it-0')).toMatchObject({
      verifyFirst: true,
      reason: 'an earlier create was interrupted',
    });
    expect(plan.actions.find((a) => a.type === 'create' && a.externalId === 'it-1')).toMatchObject({
      verifyFirst: false,
    });
    await withStore(h, async (s) => {
      expect(await s.listRuns(10)).toEqual([]);
      expect(await s.journalUnfinished()).toHaveLength(3);
      expect(await s.currentLease()).toBeUndefined();
    });
  });

  it('a plan the check refuses ends the run aborted before any write, the refusal first in its messages', async () => {
    h = await createHarness();
    h.write('items/a.json', items(2));
    const { report, plan } = await h.reconcile({ accept: () => ['the plan changed since it was saved'] });
    expect(report.outcome).toBe('aborted');
    expect(report.messages[0]).toBe('the plan changed since it was saved');
    expect(plan.actions).toEqual([]);
    expect(report.sales).toEqual([]);
    expect(h.writes()).toBe(0);
    await withStore(h, async (s) => expect(await s.listRuns(10)).toEqual([]));
    // A check with nothing to say lets the run go.
    expect((await h.reconcile({ accept: () => [] })).report.outcome).toBe('converged');
  });

  it('records each run with its command, outcome and counts; a failed offer makes it partial', async () => {
    h = await createHarness();
    h.write('items/a.json', items(2));
    const first = await h.reconcile({ command: 'reconcile' });
    expect(first.report.outcome).toBe('converged');
    expect(first.report.messages).toEqual([]);
    h.write('items/a.json', JSON.stringify([{ external_id: 'it-0', title: 'Item 0', price: -5 }]));
    h.write('items/b.json', items(0));
    const second = await h.reconcile({ command: 'daemon' });
    expect(second.report.outcome).toBe('partial');
    await withStore(h, async (s) => {
      const runs = await s.listRuns(10);
      expect(runs.map((r) => [r.id, r.command, r.outcome])).toEqual([
        [second.report.runId, 'daemon', 'partial'],
        [first.report.runId, 'reconcile', 'converged'],
      ]);
      expect(runs[1]?.counts).toMatchObject({ 'item.created': 2 });
      expect(runs[0]?.endedAt).toEqual(expect.any(Number));
    });
  });

  it('a run saves when its read started, per kind, for the next incremental run; a targeted run, none', async () => {
    h = await createHarness();
    h.write('items/a.json', items(3));
    const before = Date.now();
    await h.reconcile(); // creates: the snapshot it read was empty, and complete
    const first = await withStore(h, async (s) => Number(await s.getMeta('read-started.item')));
    expect(first).toBeGreaterThanOrEqual(before);
    expect(first).toBeLessThanOrEqual(Date.now());
    await h.reconcile(); // sees the creates
    const saved = await withStore(h, async (s) => await s.getMeta('read-started.item'));
    expect(Number(saved)).toBeGreaterThanOrEqual(first);
    // Targeted runs: the first patches it-0, the second sees that patch, and neither moves the mark.
    h.write('items/a.json', items(3, 500));
    const only = { target: { keys: ['item:it-0'] } };
    expect((await h.reconcile(only)).report.counts).toMatchObject({ item: { updated: 1 } });
    await h.reconcile(only);
    await withStore(h, async (s) => expect(await s.getMeta('read-started.item')).toBe(saved));
    // An incremental run reads from there and patches the two offers the targeted runs left.
    const inc = await h.reconcile({ mode: 'incremental' });
    expect(inc.report.outcome).toBe('converged');
    expect(inc.report.counts).toMatchObject({ item: { updated: 2 } });
  });

  it('a run its signal stops ends stopped, is recorded so, and moves no watermark', async () => {
    h = await createHarness();
    h.write('items/a.json', items(4));
    await h.reconcile(); // creates
    h.write('items/a.json', items(4, 200));
    await h.reconcile(); // reads the creates (marks where it read), then patches
    const saved = await withStore(h, async (s) => await s.getMeta('read-started.item'));
    h.write('items/a.json', items(4, 300));
    const stop = new AbortController();
    const { report } = await h.reconcile({
      onProgress: (done) => {
        if (done === 1) stop.abort(new Error('SIGTERM'));
      },
      signal: stop.signal,
    });
    expect(report.outcome).toBe('stopped');
    expect(report.counts).toMatchObject({ item: { updated: expect.any(Number) } });
    await withStore(h, async (s) => {
      expect((await s.listRuns(1)).map((r) => r.outcome)).toEqual(['stopped']);
      // The snapshot of this run saw the patches of the last one, but a stopped run leaves the mark as it was.
      expect(await s.getMeta('read-started.item')).toBe(saved);
    });
  });

  it('reports catalogue errors as invalid (never failed) naming file, line and field, and the requests', async () => {
    h = await createHarness();
    h.write(
      'items/a.json',
      `[\n  {"external_id": "ok-1", "title": "Fine", "price": 100},\n` +
        `  {"external_id": "bad-1", "title": "Bad", "price": "lots"}\n]\n`,
    );
    h.sandbox.resetCounters();
    const { report } = await h.reconcile();
    expect(report.outcome).toBe('partial');
    const invalid = report.outcomes.filter((o) => o.outcome === 'invalid');
    expect(invalid).toEqual([
      expect.objectContaining({ kind: 'item', externalId: 'bad-1', file: expect.stringMatching(/^items\/a\.json:3/) }),
    ]);
    expect(invalid[0]?.message).toMatch(/^price: /);
    expect(report.counts).toMatchObject({ item: { created: 1, invalid: 1, failed: 0 } });
    expect(report.requests).toBe(requestsSent(h));
    expect(report.durationMs).toBeGreaterThanOrEqual(0);
  });
});

describe('reconcile: the run around the plan, continued', () => {
  const other = { holder: 'elsewhere', pid: 4242, hostname: 'other-host', scope: 'another-boot' };

  it('a dry run reads while another instance holds the writer lease: plan needs no lease', async () => {
    h = await createHarness();
    h.write('items/a.json', items(1));
    await withStore(h, async (s) => expect((await s.acquireLease(other, 60_000)).ok).toBe(true));
    const { report } = await h.reconcile({ dryRun: true });
    expect(report.outcome).toBe('planned');
    await withStore(h, async (s) => expect((await s.currentLease())?.holder).toBe('elsewhere'));
  });

  it('holds the writer lease for the configured TTL while it writes, 30 s by default, and lets go after', async () => {
    h = await createHarness();
    h.write('items/a.json', items(1));
    // The lease seen at plan time, against the clock before the run and at that moment: it was taken (or last
    // renewed) between the two, for the TTL, whatever the machine's load made of the time in between.
    const leaseAtPlan = async (ttl: number) => {
      const before = Date.now();
      let atPlan: Promise<number> | undefined;
      let seenAt = Number.NaN;
      await h!.reconcile({
        onPlan: () => {
          seenAt = Date.now();
          atPlan = withStore(h!, async (s) => (await s.currentLease())!.expiresAt);
        },
      });
      const expiresAt = (await atPlan) ?? Number.NaN;
      expect(expiresAt - before).toBeGreaterThanOrEqual(ttl);
      expect(expiresAt - seenAt).toBeLessThanOrEqual(ttl);
    };
    await leaseAtPlan(30_000);
    await withStore(h, async (s) => expect(await s.currentLease()).toBeUndefined());
    h.config = { ...h.config, state: { ...h.config.state, leaseTtlMs: 90_000 } };
    await leaseAtPlan(90_000);
  });

  it('two runs on one set of services (as the daemon runs them): each reports only its own requests', async () => {
    h = await createHarness();
    h.write('items/a.json', items(3));
    const services = await openServices(h.config, { logger: silentLogger });
    try {
      const run = () => reconcile(services.reconcileDeps, { command: 'test', dryRun: false });
      const first = await run();
      h.sandbox.resetCounters();
      const second = await run();
      const sent = requestsSent(h);
      expect(first.report.requests).toBeGreaterThan(sent);
      expect(second.report.requests).toBe(sent);
      expect(second.report.durationMs).toBeGreaterThanOrEqual(0);
      expect(second.report.durationMs).toBeLessThan(600_000);
      expect(second.report.runId).toMatch(/^\d{8}T\d{6}-[0-9a-f]{6}$/);
      expect(second.report.runId).not.toBe(first.report.runId);
      // A caller that counts no requests, and one that holds the lease itself and passes no stop signal.
      const bare = { ...services.reconcileDeps, requestCount: undefined, leaseHeldByCaller: true };
      const third = await reconcile(bare, { command: 'test', dryRun: false });
      expect(third.report).toMatchObject({ outcome: 'converged', requests: 0 });
    } finally {
      await services.close();
    }
  });

  it('an update the marketplace cannot take (blocked) makes the run partial, not converged', async () => {
    h = await createHarness({ config: { accounts: { updateFallback: 'report' } } });
    h.write('accounts/a.json', JSON.stringify([{ external_id: 'ac-1', title: 'Account 1', price: 900 }]));
    expect((await h.reconcile()).report.outcome).toBe('converged');
    h.sandbox.setFaults({ disabled: ['accounts.update'] });
    h.write('accounts/a.json', JSON.stringify([{ external_id: 'ac-1', title: 'Account 1', price: 901 }]));
    const { report } = await h.reconcile();
    expect(report.counts).toMatchObject({ account: { blocked: 1 } });
    expect(report.outcome).toBe('partial');
  });

  it('one kind whose list cannot be read does not stop the others: they are written, it is left as it is', async () => {
    h = await createHarness();
    h.write('items/a.json', items(2));
    const noTopUps = (client: MarketplaceClient) =>
      overrideMethod(client, 'topUps', 'list', () => {
        throw new ServerError({ method: 'GET', path: '/api/v1/top-ups', status: 503 });
      });
    const { report } = await h.reconcile({}, undefined, noTopUps);
    expect(report.counts).toMatchObject({ item: { created: 2 } });
  });

  it('a catalogue warning is no failure: the run converges and the warning fails no offer', async () => {
    h = await createHarness();
    h.write('items/a.json', items(1));
    h.write('items/notes.docx', 'not a catalogue format');
    const { report, catalogue } = await h.reconcile();
    expect(catalogue.problems).toEqual([expect.objectContaining({ severity: 'warning', file: 'items/notes.docx' })]);
    expect(report.outcome).toBe('converged');
    expect(report.outcomes.filter((o) => o.outcome === 'failed')).toEqual([]);
  });

  it('a catalogue error names file:line:column#pointer; a whole-file error, its file and the message', async () => {
    h = await createHarness();
    h.write('items/a.json', `[\n  {"external_id": "bad-1", "title": "Bad", "price": "lots"}\n]\n`);
    h.write('items/broken.json', '[{"external_id": "b-1"');
    const { report, catalogue } = await h.reconcile();
    const invalid = report.outcomes.filter((o) => o.outcome === 'invalid');
    expect(invalid.find((o) => o.externalId === 'bad-1')?.file).toMatch(/^items\/a\.json:2:\d+#\/0\/price$/);
    const whole = catalogue.problems.find((p) => p.file === 'items/broken.json')!;
    expect(whole.field).toBeUndefined();
    expect(invalid.find((o) => o.externalId === '(file)')).toMatchObject({ kind: 'item', message: whole.message });
  });

  it('a run the guard stops moves no read mark', async () => {
    h = await createHarness();
    const many = (price: number) =>
      JSON.stringify(Array.from({ length: 30 }, (_, i) => ({ external_id: `g-${i}`, title: `G ${i}`, price })));
    h.write('items/a.json', many(100));
    await h.reconcile(); // creates
    h.write('items/a.json', many(200));
    await h.reconcile(); // reads the creates (marks where it read), then patches them
    const saved = await withStore(h, async (s) => await s.getMeta('read-started.item'));
    expect(saved).toBeDefined();
    h.write('items/a.json', '[]');
    const { report } = await h.reconcile();
    expect(report.outcome).toBe('aborted');
    await withStore(h, async (s) => {
      expect(await s.getMeta('read-started.item')).toBe(saved);
      expect(await s.getMeta('read-started.account')).toBe(saved);
    });
  });

  it('a plan the guard would stop says so first and writes no held-back list (nothing held: nothing ran)', async () => {
    h = await createHarness();
    const many = JSON.stringify(
      Array.from({ length: 30 }, (_, i) => ({ external_id: `g-${i}`, title: 'G', price: 1 })),
    );
    h.write('items/a.json', many);
    await h.reconcile();
    h.write('items/a.json', '[]');
    const { report } = await h.reconcile({ dryRun: true });
    expect(report.messages).toEqual([expect.stringMatching(/would archive 30 of 30 managed offers, more than half/)]);
    expect(readdirSync(dirname(h.statePath)).filter((f) => f.startsWith('guard-'))).toEqual([]);
  });

  it('waits for a writer lease another instance holds with a lock timeout, and runs once it is let go', async () => {
    h = await createHarness({ config: { state: { leaseTtlMs: 2_000 } } });
    h.write('items/a.json', items(1));
    mkdirSync(dirname(h.statePath), { recursive: true });
    const holder = await openStateStore(h.statePath);
    expect((await holder.acquireLease(other, 60_000)).ok).toBe(true);
    const log = captureLog('warn');
    const waiting = () => log.find('writer lease held: waiting for it');
    const run = h.reconcile({ lockTimeoutMs: 30_000 }, log.logger);
    // Let go once the run has said it waits (bounded: the run gives up after 30 s anyway).
    for (let i = 0; i < 1_500 && waiting().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await holder.releaseLease('elsewhere');
    holder.close();
    expect((await run).report.outcome).toBe('converged');
    expect(waiting()).toEqual([expect.objectContaining({ holder: 'elsewhere', pid: 4242, host: 'other-host' })]);
  });

  it('an offer missing from the list whose check by id fails is not created again: left for the next run', async () => {
    h = await createHarness();
    h.write('items/a.json', items(1));
    await h.reconcile();
    h.write('items/a.json', items(1, 500));
    const client = (c: MarketplaceClient) =>
      overrideMethod(
        mapListPages(c, 'items', (page) => ({ ...page, items: page.items.filter((o) => o.externalId !== 'it-0') })),
        'items',
        'get',
        async () => {
          throw new ServerError({ method: 'GET', path: '/api/v1/items/1', status: 503 });
        },
      );
    h.sandbox.resetCounters();
    const { report } = await h.reconcile({}, undefined, client);
    expect(h.writes()).toBe(0);
    expect(report.outcomes).toContainEqual(expect.objectContaining({ externalId: 'it-0', outcome: 'skipped' }));
    expect(h.sandbox.dump().items.filter((o) => o.external_id === 'it-0')).toHaveLength(1);
  });

  it('a catalogue folder that cannot be read is a file-level problem, and nothing is archived', async () => {
    h = await createHarness();
    h.write('items/a.json', items(2));
    await h.reconcile();
    rmSync(h.catalogueDir, { recursive: true, force: true });
    h.sandbox.resetCounters();
    const { report } = await h.reconcile();
    expect(h.writes()).toBe(0);
    expect(report.outcomes.filter((o) => o.outcome === 'invalid')).toEqual([
      expect.objectContaining({ kind: 'file', externalId: '(file)', file: '.' }),
    ]);
  });

  it('an incremental run reads from its cutoff: fewer list pages than a full sweep', async () => {
    h = await createHarness({ config: { lists: { perPage: 1 } } });
    h.write('items/a.json', items(4));
    await h.reconcile(); // creates
    // An update teaches offersync the clock that stamps updates; until then an incremental read reads back hours.
    h.write(
      'items/a.json',
      JSON.stringify([...JSON.parse(items(3)), { external_id: 'it-3', title: 'Item 3', price: 150 }]),
    );
    await h.reconcile();
    await pastCutoffSlack();
    await h.reconcile(); // sees them
    h.write(
      'items/a.json',
      JSON.stringify([{ external_id: 'it-0', title: 'Item 0', price: 999 }, ...JSON.parse(items(4)).slice(1)]),
    );
    const listPages = () => requestsByRoute(h!.sandbox)['GET /api/v1/items'] ?? 0;
    h.sandbox.resetCounters();
    await h.reconcile({ mode: 'incremental' }); // patches it-0
    const incremental = listPages();
    h.sandbox.resetCounters();
    await h.reconcile(); // a full sweep
    expect(listPages()).toBeGreaterThanOrEqual(4);
    expect(incremental).toBeLessThan(listPages());
  });

  it('a run the state db fails under is recorded failed, and the error reaches the caller', async () => {
    h = await createHarness();
    h.write('items/a.json', items(2));
    await h.reconcile();
    rmSync(h.statePath); // state lost: the next run adopts both offers, which writes the offers table first
    const log = captureLog('warn');
    const broken = h.reconcile(
      {
        onPlan: () => {
          const db = new Database(h!.statePath);
          db.exec('DROP TABLE offers');
          db.close();
        },
      },
      log.logger,
    );
    await expect(broken).rejects.toThrow(/offers/);
    // The operator's log says so too, with the cause.
    expect(log.find('run failed')).toEqual([expect.objectContaining({ err: expect.stringMatching(/offers/) })]);
    // Read as it is: the store itself cannot open a db without its offers table.
    const db = new Database(h.statePath, { readonly: true });
    expect(db.prepare('SELECT outcome FROM runs ORDER BY started_at DESC LIMIT 1').get()).toEqual({
      outcome: 'failed',
    });
    db.close();
  });
  it('prunes the run history past state.keepRuns after a run, and says so at debug only when it pruned', async () => {
    h = await createHarness({ config: { state: { keepRuns: 2 } } });
    h.write('items/a.json', items(1));
    const pruned = 'state db: old runs and journal entries pruned';
    const first = captureLog('debug');
    await h.reconcile({}, first.logger);
    await h.reconcile();
    expect(first.find(pruned)).toEqual([]);
    const third = captureLog('debug');
    await h.reconcile({}, third.logger);
    // The first run (the create) and its journal entry go; the two newest runs stay.
    expect(third.find(pruned)).toEqual([expect.objectContaining({ runs: 1, journal: 1 })]);
    const runs = await withStore(h, (store) => store.listRuns(10));
    expect(runs).toHaveLength(2);
  });
});

describe('reconcile: what the report and the status keep', () => {
  it('a price the guard holds stops the run; the stop is kept for status until a run gets through', async () => {
    h = await createHarness();
    h.write('items/a.json', items(3, 5000));
    await h.reconcile();
    h.sandbox.resetCounters();
    h.write('items/a.json', items(3, 50)); // a hundredth of the price: a lost decimal point
    const log = captureLog('warn');
    const held = await h.reconcile({}, log.logger);
    expect(held.report.outcome).toBe('aborted');
    // The run's lines carry its id, as its report and the status do.
    expect(log.find('price guard tripped: nothing sent')).toEqual([
      expect.objectContaining({ runId: held.report.runId }),
    ]);
    expect(h.writes()).toBe(0);
    expect(held.report.messages).toEqual([held.plan.priceGuard.message, expect.stringContaining(held.report.runId)]);
    const stop = await withStore(h, readGuardStop);
    expect(stop).toEqual({
      runId: held.report.runId,
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      messages: held.report.messages,
    });
    // A run its signal stops did not get through: the guard's stop stands.
    const sigterm = new AbortController();
    const stopped = await h.reconcile({
      allowPriceChange: true,
      signal: sigterm.signal,
      onProgress: () => sigterm.abort(new Error('SIGTERM')),
    });
    expect(stopped.report.outcome).toBe('stopped');
    expect(await withStore(h, readGuardStop)).toEqual(stop);
    // --allow-price-change: the run goes through, says nothing of a guard, and the stop is cleared.
    const through = await h.reconcile({ allowPriceChange: true });
    expect(through.report.outcome).toBe('converged');
    expect(through.report.messages).toEqual([]);
    expect(await withStore(h, readGuardStop)).toBeNull();
  });

  it('a dry run the price guard would stop says so alone: nothing is held, so no stop is kept for status', async () => {
    h = await createHarness();
    h.write('items/a.json', items(3, 5000));
    await h.reconcile();
    h.write('items/a.json', items(3, 50));
    const { plan, report } = await h.reconcile({ dryRun: true });
    expect(plan.priceGuard.tripped).toBe(true);
    expect(report.messages).toEqual([plan.priceGuard.message]);
    expect(await withStore(h, readGuardStop)).toBeNull();
  });

  it('a catalogue whose stock catches up with what sold tells no sale again and sends nothing', async () => {
    h = await createHarness();
    const stocked = (stock: number) => JSON.stringify([{ external_id: 'st-1', title: 'Stocked', price: 100, stock }]);
    h.write('items/a.json', stocked(10));
    await h.reconcile();
    await h.reconcile(); // the count seen first is a baseline
    h.sandbox.sell('items', 'st-1', 3, false);
    const sold = await h.reconcile();
    expect(sold.report.sales).toEqual([expect.objectContaining({ externalId: 'st-1', quantity: 3 })]);
    // The seller's inventory now says what the marketplace shows: the new baseline, no sale, no write.
    h.write('items/a.json', stocked(7));
    h.sandbox.resetCounters();
    const caught = await h.reconcile();
    expect(caught.plan.soldCounts).toEqual([expect.objectContaining({ externalId: 'st-1', agreedStock: 7 })]);
    expect(caught.report.sales).toEqual([]);
    expect(h.writes()).toBe(0);
  });

  it('tells in its report the units the marketplace sold since the last run, once', async () => {
    h = await createHarness();
    h.write('items/a.json', items(2));
    await h.reconcile(); // creates
    expect((await h.reconcile()).report.sales).toEqual([]); // the counts seen first are a baseline
    h.sandbox.sell('items', 'it-1', 3);
    const { report } = await h.reconcile();
    expect(report.sales).toEqual([
      expect.objectContaining({ kind: 'item', externalId: 'it-1', title: 'Item 1', price: 101, quantity: 3 }),
    ]);
    expect((await h.reconcile()).report.sales).toEqual([]);
  });
});
