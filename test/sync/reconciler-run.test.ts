// The reconciler's own bookkeeping around plan and execute: a marketplace it cannot read, a dry run, a plan a
// saved-plan check refuses, the run history, the incremental watermarks, the catalogue's failures in the report
// and the request count. Against the sandbox, wired as the CLI wires it.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/sqlite-state-store.ts';
import { MarketplaceUnreadableError } from '../../src/sync/reconciler.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const items = (n: number, price = 100) =>
  JSON.stringify(
    Array.from({ length: n }, (_, i) => ({ external_id: `it-${i}`, title: `Item ${i}`, price: price + i })),
  );
function withStore<T>(harness: Harness, fn: (store: ReturnType<typeof openStateStore>) => T): T {
  mkdirSync(dirname(harness.statePath), { recursive: true });
  const store = openStateStore(harness.statePath);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

describe('reconcile: the run around the plan', () => {
  it('stops before planning when no list can be read, saying why and that nothing was sent', async () => {
    h = await createHarness();
    h.write('items/a.json', items(2));
    h.config = { ...h.config, apiKey: 'not-the-key' };
    const run = h.reconcile();
    await expect(run).rejects.toThrow(MarketplaceUnreadableError);
    await expect(run).rejects.toThrow(/^cannot read the marketplace's offer lists \(.*401.*\); nothing was sent$/);
    expect(h.writes()).toBe(0);
  });

  it('a dry run plans and sends nothing, records no run, and leaves the journal for the next real run', async () => {
    h = await createHarness();
    h.write('items/a.json', items(2));
    h.write('accounts/a.json', JSON.stringify([{ external_id: 'ac-0', title: 'Account 0', price: 900 }]));
    withStore(h, (s) => {
      const e = s.journalBegin({ runId: 'crashed', op: 'create', kind: 'item', keys: ['it-0'] });
      s.journalSet(e.id, 'sent');
      // A re-create cut off between its archive and its create: looked up first too.
      const r = s.journalBegin({ runId: 'crashed', op: 'recreate', kind: 'account', keys: ['ac-0'] });
      s.journalSet(r.id, 'sent');
      // An update cut off is no create: nothing to look up before creating it-1.
      const u = s.journalBegin({ runId: 'crashed', op: 'update', kind: 'item', keys: ['it-1'] });
      s.journalSet(u.id, 'sent');
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
    withStore(h, (s) => {
      expect(s.listRuns(10)).toEqual([]);
      expect(s.journalUnfinished()).toHaveLength(3);
      expect(s.currentLease()).toBeUndefined();
    });
  });

  it('a plan the check refuses ends the run aborted before any write, the refusal first in its messages', async () => {
    h = await createHarness();
    h.write('items/a.json', items(2));
    const { report, plan } = await h.reconcile({ accept: () => ['the plan changed since it was saved'] });
    expect(report.outcome).toBe('aborted');
    expect(report.messages[0]).toBe('the plan changed since it was saved');
    expect(plan.actions).toEqual([]);
    expect(h.writes()).toBe(0);
    withStore(h, (s) => expect(s.listRuns(10)).toEqual([]));
    // A check with nothing to say lets the run go.
    expect((await h.reconcile({ accept: () => [] })).report.outcome).toBe('converged');
  });

  it('records each run with its command, outcome and counts; a failed offer makes it partial', async () => {
    h = await createHarness();
    h.write('items/a.json', items(2));
    const first = await h.reconcile({ command: 'reconcile' });
    expect(first.report.outcome).toBe('converged');
    h.write('items/a.json', JSON.stringify([{ external_id: 'it-0', title: 'Item 0', price: -5 }]));
    h.write('items/b.json', items(0));
    const second = await h.reconcile({ command: 'daemon' });
    expect(second.report.outcome).toBe('partial');
    withStore(h, (s) => {
      const runs = s.listRuns(10);
      expect(runs.map((r) => [r.id, r.command, r.outcome])).toEqual([
        [second.report.runId, 'daemon', 'partial'],
        [first.report.runId, 'reconcile', 'converged'],
      ]);
      expect(runs[1]?.counts).toMatchObject({ 'item.created': 2 });
      expect(runs[0]?.endedAt).toEqual(expect.any(Number));
    });
  });

  it('saves the newest updated_at per kind after a full run, for the next incremental one; not after a targeted run', async () => {
    h = await createHarness();
    h.write('items/a.json', items(3));
    await h.reconcile(); // creates: the snapshot it read was empty
    withStore(h, (s) => expect(s.getMeta('watermark.item')).toBeUndefined());
    await h.reconcile(); // sees the creates
    const saved = withStore(h, (s) => s.getMeta('watermark.item'));
    expect(Number(saved)).toBeGreaterThan(0);
    // Targeted runs: the first patches it-0, the second sees that patch, and neither moves the watermark.
    h.write('items/a.json', items(3, 500));
    const only = { target: { keys: ['item:it-0'] } };
    expect((await h.reconcile(only)).report.counts).toMatchObject({ item: { updated: 1 } });
    await h.reconcile(only);
    withStore(h, (s) => expect(s.getMeta('watermark.item')).toBe(saved));
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
    await h.reconcile(); // reads the creates (watermark), then patches
    const saved = withStore(h, (s) => s.getMeta('watermark.item'));
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
    withStore(h, (s) => {
      expect(s.listRuns(1).map((r) => r.outcome)).toEqual(['stopped']);
      // The snapshot of this run saw the patches of the last one, but a stopped run leaves the mark as it was.
      expect(s.getMeta('watermark.item')).toBe(saved);
    });
  });

  it('reports the catalogue errors as failed offers naming file, line and field, and the requests it sent', async () => {
    h = await createHarness();
    h.write(
      'items/a.json',
      `[\n  {"external_id": "ok-1", "title": "Fine", "price": 100},\n  {"external_id": "bad-1", "title": "Bad", "price": "lots"}\n]\n`,
    );
    h.sandbox.resetCounters();
    const { report } = await h.reconcile();
    expect(report.outcome).toBe('partial');
    const failed = report.outcomes.filter((o) => o.outcome === 'failed');
    expect(failed).toEqual([
      expect.objectContaining({ kind: 'item', externalId: 'bad-1', file: expect.stringMatching(/^items\/a\.json:3/) }),
    ]);
    expect(failed[0]?.message).toMatch(/^price: /);
    expect(report.counts).toMatchObject({ item: { created: 1, failed: 1 } });
    const sent = Object.values(h.sandbox.counters().byRoute).reduce(
      (n, byStatus) => n + Object.values(byStatus).reduce((a, b) => a + b, 0),
      0,
    );
    expect(report.requests).toBe(sent);
    expect(report.durationMs).toBeGreaterThanOrEqual(0);
  });
});
