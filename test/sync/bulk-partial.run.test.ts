// Item bulk calls the marketplace carries out in part (sandbox bulk.failEvery: every third element left undone),
// answered itemised with the failures named or with counts that fall short: what the answer does not show done is
// sent singly, nothing is lost or done twice, and the report counts each offer once.
import { describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/sandbox-options.ts';
import type { ReconcileResult } from '../../src/sync/reconciler.ts';
import { type Harness, requestsByRoute, harnessPerTest } from '../support/harness.ts';

const openHarness = harnessPerTest();

const N = 10;
const GUARD = { guard: { maxArchive: 100, maxArchivePercent: 100, maxArchiveMin: 0 } };
const items = (harness: Harness, price: number, n = N) =>
  harness.write(
    'items/i.json',
    JSON.stringify(
      Array.from({ length: n }, (_, i) => ({ external_id: `it-${i}`, title: `Item ${i}`, price: price + i })),
    ),
  );

/** N items created, the sandbox then answering bulk calls in part. */
async function seeded(sandbox: SandboxOptions): Promise<Harness> {
  const harness = await openHarness({ config: GUARD });
  items(harness, 100);
  expect((await harness.reconcile()).report.outcome).toBe('converged');
  harness.sandbox.setBulk({ undocumented: true, failEvery: 3, ...sandbox.bulk });
  harness.sandbox.setRepresentation(sandbox.representation ?? {});
  harness.sandbox.setFaults(sandbox.faults ?? {});
  harness.sandbox.resetCounters();
  return harness;
}

/** Each offer's outcome, failing the test if one is reported twice. */
function outcomes(run: ReconcileResult): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of run.report.outcomes.filter((x) => x.outcome !== 'unchanged')) {
    expect(out[o.externalId], `${o.externalId} reported twice`).toBeUndefined();
    out[o.externalId] = o.outcome;
  }
  return out;
}
const all = (outcome: string, from = 0, to = N) =>
  Object.fromEntries(Array.from({ length: to - from }, (_, i) => [`it-${from + i}`, outcome]));
const byId = (harness: Harness) =>
  harness.sandbox.dump().items.sort((a, b) => String(a.external_id).localeCompare(String(b.external_id)));

describe('item bulk-update answered in part', () => {
  for (const [name, representation] of [
    ['itemised, the undone ones failed', {}],
    ['counts only, short of the batch', { bulkCountsOnly: true }],
  ] as const) {
    it(`${name}: the undone ones go by PATCH, every price set, each offer counted once`, async () => {
      const h = await seeded({ representation });
      items(h, 200);
      const run = await h.reconcile();
      expect(run.report.outcome).toBe('converged');
      expect(outcomes(run)).toEqual(all('updated'));
      const routes = requestsByRoute(h.sandbox);
      expect(routes['POST /api/v1/items/bulk-update']).toBe(1);
      expect(routes['PATCH /api/v1/items/{identifier}']).toBe(3); // elements 3, 6 and 9 of 10
      expect(routes['GET /api/v1/items/{identifier}']).toBeUndefined(); // counts confirmed through the list
      expect(routes['POST /api/v1/items']).toBeUndefined();
      expect(byId(h).map((i) => i.price)).toEqual(Array.from({ length: N }, (_, i) => 200 + i));
      // Converged: the next run has nothing to send.
      h.sandbox.resetCounters();
      expect(outcomes(await h.reconcile())).toEqual({});
      expect(h.writes()).toBe(0);
    });
  }
});

describe('item bulk-remove answered in part', () => {
  for (const [name, representation] of [
    ['itemised, the undone ones failed', {}],
    ['counts only, short of the batch', { bulkCountsOnly: true }],
  ] as const) {
    it(`${name}: the undone ones archived singly, each offer counted once`, async () => {
      // bulk-update not served: item archives go by bulk-remove.
      const h = await seeded({ representation, faults: { disabled: ['items.bulkUpdate'] } });
      items(h, 100, 4); // 6 removed
      const run = await h.reconcile({ allowMassArchive: true });
      expect(run.report.outcome).toBe('converged');
      expect(outcomes(run)).toEqual(all('archived', 4));
      const routes = requestsByRoute(h.sandbox);
      expect(routes['POST /api/v1/items/bulk-remove']).toBe(1);
      expect(routes['PATCH /api/v1/items/{identifier}']).toBe(2); // elements 3 and 6 of 6
      expect(routes['GET /api/v1/items/{identifier}']).toBeUndefined();
      expect(byId(h).map((i) => i.status)).toEqual([...Array(4).fill('listed'), ...Array(6).fill('archived')]);
      h.sandbox.resetCounters();
      expect(outcomes(await h.reconcile())).toEqual({});
      expect(h.writes()).toBe(0);
    });
  }
});
