// The bulk routes the document does not show (item bulk-update, item and top-up bulk-remove), against the
// sandbox: each probed, used, refused and fallen back from; the body key and the batch limit learnt from the
// marketplace's 422; nothing lost either way.
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/state/open-state-store.ts';
import { CAPABILITIES } from '../../../src/capabilities/names.ts';
import { captureLog } from '../../support/log-capture.ts';
import { type createHarness, requestsByRoute, type Harness, harnessPerTest } from '../../support/harness.ts';

const openHarness = harnessPerTest();

const ITEMS = 5;
const GUARD = { guard: { maxArchive: 100, maxArchivePercent: 100, maxArchiveMin: 0 } };
const items = (h: Harness, price: number, n = ITEMS) =>
  h.write(
    'items/i.json',
    JSON.stringify(
      Array.from({ length: n }, (_, i) => ({ external_id: `it-${i}`, title: `Item ${i}`, price: price + i })),
    ),
  );
const topUps = (h: Harness, n: number) =>
  h.write(
    'top-ups/t.json',
    JSON.stringify(
      Array.from({ length: n }, (_, i) => ({ external_id: `tu-${i}`, offer_title: `${i}`, price: 50 + i })),
    ),
  );

/** A harness whose items (and top-ups) exist, counters reset. */
async function seeded(sandbox: Parameters<typeof createHarness>[0] = {}): Promise<Harness> {
  const harness = await openHarness({ ...sandbox, config: { ...GUARD, ...sandbox.config } });
  items(harness, 100);
  topUps(harness, 4);
  expect((await harness.reconcile()).report.outcome).toBe('converged');
  harness.sandbox.resetCounters();
  return harness;
}

async function capabilities(h: Harness): Promise<Map<string, { usable: boolean; detail: string | null }>> {
  const store = await openStateStore(h.statePath);
  try {
    return new Map((await store.listCapabilities()).map((c) => [c.name, { usable: c.usable, detail: c.detail }]));
  } finally {
    await store.close();
  }
}

/** By external_id: the creates ran concurrently, so ids are in no particular order. */
const byExternalId = (h: Harness, kind: 'items' | 'topUps') =>
  h.sandbox.dump()[kind].sort((a, b) => String(a.external_id).localeCompare(String(b.external_id)));
const prices = (h: Harness) => byExternalId(h, 'items').map((i) => i.price);
const statuses = (h: Harness, kind: 'items' | 'topUps') => byExternalId(h, kind).map((o) => o.status);

describe('bulk routes the document does not show', () => {
  it('absent: item bulk-update and bulk-remove probed once each, refused, remembered; offers sent singly', async () => {
    const h = await seeded();
    items(h, 200, 3); // 3 repriced, 2 removed
    const run = await h.reconcile();
    expect(run.report.outcome).toBe('converged');
    expect(requestsByRoute(h.sandbox)).toMatchObject({
      'POST /api/v1/items/bulk-update': 1,
      'POST /api/v1/items/bulk-remove': 1,
      'PATCH /api/v1/items/{identifier}': 5,
    });
    expect(prices(h).slice(0, 3)).toEqual([200, 201, 202]);
    expect(statuses(h, 'items').slice(3)).toEqual(['archived', 'archived']);
    const caps = await capabilities(h);
    expect(caps.get(CAPABILITIES.itemBulkUpdate)?.usable).toBe(false);
    expect(caps.get(CAPABILITIES.itemBulkRemove)?.usable).toBe(false);
    // Remembered: the next run sends them one by one without asking again.
    h.sandbox.resetCounters();
    items(h, 300, 3);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    const routes = requestsByRoute(h.sandbox);
    expect(routes['POST /api/v1/items/bulk-update']).toBeUndefined();
    expect(routes['PATCH /api/v1/items/{identifier}']).toBe(3);
  });

  it('served with the documented key: item updates and archives in one bulk-update call each', async () => {
    const h = await seeded({ sandbox: { bulk: { undocumented: true } } });
    items(h, 200, 3);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    const routes = requestsByRoute(h.sandbox);
    expect(routes['POST /api/v1/items/bulk-update']).toBe(2);
    expect(routes['PATCH /api/v1/items/{identifier}']).toBeUndefined();
    expect(prices(h).slice(0, 3)).toEqual([200, 201, 202]);
    expect(statuses(h, 'items').slice(3)).toEqual(['archived', 'archived']);
    expect((await capabilities(h)).get(CAPABILITIES.itemBulkUpdate)?.usable).toBe(true);
  });

  it('bulk-update refused, bulk-remove served: archives of items and top-ups go by bulk-remove', async () => {
    const h = await seeded({ sandbox: { bulk: { undocumented: true } } });
    h.sandbox.setFaults({ disabled: ['items.bulkUpdate', 'topUps.bulkUpdate'] });
    items(h, 100, 2); // 3 items removed
    topUps(h, 1); // 3 top-ups removed
    // Six of nine managed offers go: the guard's half rule, which no configuration lifts, would stop the run.
    expect((await h.reconcile({ allowMassArchive: true })).report.outcome).toBe('converged');
    expect(requestsByRoute(h.sandbox)).toMatchObject({
      'POST /api/v1/items/bulk-update': 1,
      'POST /api/v1/items/bulk-remove': 1,
      'POST /api/v1/top-ups/bulk-update': 1,
      'POST /api/v1/top-ups/bulk-remove': 1,
    });
    const routes = requestsByRoute(h.sandbox);
    expect(routes['PATCH /api/v1/items/{identifier}']).toBeUndefined();
    expect(routes['PATCH /api/v1/top-ups/{identifier}']).toBeUndefined();
    expect(statuses(h, 'items')).toEqual(['listed', 'listed', 'archived', 'archived', 'archived']);
    expect(statuses(h, 'topUps')).toEqual(['listed', 'archived', 'archived', 'archived']);
    expect((await capabilities(h)).get(CAPABILITIES.topUpBulkRemove)?.usable).toBe(true);
  });

  it('a usable route that later refuses: the batch falls back to single calls, nothing lost', async () => {
    const h = await seeded({ sandbox: { bulk: { undocumented: true } } });
    items(h, 200);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    h.sandbox.setBulk({}); // the marketplace withdraws the route
    h.sandbox.resetCounters();
    items(h, 300);
    const run = await h.reconcile();
    expect(run.report.outcome).toBe('converged');
    expect(requestsByRoute(h.sandbox)).toMatchObject({
      'POST /api/v1/items/bulk-update': 1,
      'PATCH /api/v1/items/{identifier}': ITEMS,
    });
    expect(prices(h)).toEqual([300, 301, 302, 303, 304]);
    expect((await capabilities(h)).get(CAPABILITIES.itemBulkUpdate)?.usable).toBe(false);
  });

  it('another key, named only in the 422: tried once, used, remembered and logged at info', async () => {
    const h = await seeded({ sandbox: { bulk: { undocumented: true, updateKey: 'items' } } });
    items(h, 200);
    const log = captureLog('info');
    expect((await h.reconcile({}, log.logger)).report.outcome).toBe('converged');
    // The refused call, then the same batch under the key the message named.
    expect(h.sandbox.counters().byRoute['POST /api/v1/items/bulk-update']).toEqual({ '422': 1, '200': 1 });
    expect(prices(h)).toEqual([200, 201, 202, 203, 204]);
    expect(log.lines.some((l) => String(l.msg).startsWith('learnt: POST /items/bulk-update takes its array'))).toBe(
      true,
    );
    expect((await capabilities(h)).get('POST /items/bulk-update: body key')).toEqual({ usable: true, detail: 'items' });
    // Remembered: the next run sends the learnt key at once.
    h.sandbox.resetCounters();
    items(h, 300);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    expect(h.sandbox.counters().byRoute['POST /api/v1/items/bulk-update']).toEqual({ '200': 1 });
  });

  it('a batch limit named in the 422: the batch is split, the limit remembered and used by the next run', async () => {
    const h = await seeded({ sandbox: { bulk: { undocumented: true, limit: 2 } } });
    items(h, 200);
    const log = captureLog('info');
    expect((await h.reconcile({}, log.logger)).report.outcome).toBe('converged');
    expect(h.sandbox.counters().byRoute['POST /api/v1/items/bulk-update']).toEqual({ '422': 1, '200': 3 });
    expect(prices(h)).toEqual([200, 201, 202, 203, 204]);
    expect(log.lines.some((l) => l.msg === 'learnt: POST /items/bulk-update takes at most 2 offers a call')).toBe(true);
    expect((await capabilities(h)).get('POST /items/bulk-update: batch limit')).toEqual({ usable: true, detail: '2' });
    h.sandbox.resetCounters();
    items(h, 300);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    expect(h.sandbox.counters().byRoute['POST /api/v1/items/bulk-update']).toEqual({ '200': 3 });
  });

  it('count-only answers that say all were done: applied with no read-back', async () => {
    const h = await seeded({ sandbox: { bulk: { undocumented: true }, representation: { bulkCountsOnly: true } } });
    items(h, 200);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    const routes = requestsByRoute(h.sandbox);
    expect(routes['POST /api/v1/items/bulk-update']).toBe(1);
    // The run's own snapshot page only: no read-back of the list.
    expect(routes['GET /api/v1/items']).toBe(1);
    expect(prices(h)).toEqual([200, 201, 202, 203, 204]);
    // And the next run finds nothing to do.
    h.sandbox.resetCounters();
    expect((await h.reconcile()).report.outcome).toBe('converged');
    expect(h.sandbox.counters().writes).toBe(0);
  });
});
