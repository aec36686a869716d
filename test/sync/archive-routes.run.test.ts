// The single-offer archive routes of items and top-ups, against the sandbox: PATCH status=archived (the documented
// way) and DELETE (not in the document), each probed, used, refused and fallen back from, remembered in the state
// db and asked again after capabilities.reprobeAfterHours; an offer archived by DELETE, listed as archived or gone,
// is neither re-created nor archived again by the next run; nothing lost, each offer reported once.
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/marketplace/marketplace-errors.ts';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import type { SandboxRepresentation } from '../../src/sandbox/sandbox-options.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { CAPABILITIES } from '../../src/capabilities/names.ts';
import type { ReconcileResult } from '../../src/sync/reconciler.ts';
import { runMain } from '../support/captured-io.ts';
import { overrideMethod } from '../support/client-override.ts';
import { type Harness, requestsByRoute, TEST_KEY, harnessPerTest } from '../support/harness.ts';

const openHarness = harnessPerTest();

const N = 4;
const GUARD = { guard: { maxArchive: 100, maxArchivePercent: 100, maxArchiveMin: 0 } };
/** Items it-0.. and top-ups tu-0.., the first `n` of each. */
function catalogue(harness: Harness, n: number): void {
  const range = Array.from({ length: n }, (_, i) => i);
  harness.write(
    'items/i.json',
    JSON.stringify(range.map((i) => ({ external_id: `it-${i}`, title: `Item ${i}`, price: 100 + i }))),
  );
  harness.write(
    'top-ups/t.json',
    JSON.stringify(range.map((i) => ({ external_id: `tu-${i}`, offer_title: `${i} gems`, price: 50 + i }))),
  );
}

/** A harness whose N items and N top-ups exist; the sandbox then answers as `representation` says. */
async function seeded(representation: SandboxRepresentation, config: Record<string, unknown> = {}): Promise<Harness> {
  const harness = await openHarness({ config: { ...GUARD, ...config } });
  catalogue(harness, N);
  expect((await harness.reconcile()).report.outcome).toBe('converged');
  harness.sandbox.setRepresentation(representation);
  harness.sandbox.resetCounters();
  return harness;
}

async function capabilities(harness: Harness): Promise<Map<string, boolean>> {
  const store = await openStateStore(harness.statePath);
  try {
    return new Map((await store.listCapabilities()).map((c) => [c.name, c.usable]));
  } finally {
    await store.close();
  }
}

/** The archive events of an item's story: route and the marketplace's answer. */
async function archiveEvents(
  harness: Harness,
  externalId: string,
): Promise<{ route: string | null; outcome?: string }[]> {
  const store = await openStateStore(harness.statePath);
  try {
    const events = await store.offerHistory('item', externalId, 100);
    return events.filter((e) => e.type === 'archived').map((e) => ({ route: e.route, outcome: e.answer?.outcome }));
  } finally {
    await store.close();
  }
}

const statusOf = (harness: Harness, kind: 'items' | 'topUps') =>
  Object.fromEntries(harness.sandbox.dump()[kind].map((o) => [o.external_id, o.status]));
/** The run's outcomes per offer: one each, as "kind:external_id" -> outcome. */
function outcomes(run: ReconcileResult): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of run.report.outcomes.filter((x) => x.outcome !== 'unchanged')) {
    const key = `${o.kind}:${o.externalId}`;
    expect(out[key], `${key} reported twice`).toBeUndefined();
    out[key] = o.outcome;
  }
  return out;
}
const archivedAll = (ids: readonly number[]) =>
  Object.fromEntries(
    ids.flatMap((i) => [
      [`item:it-${i}`, 'archived'],
      [`topup:tu-${i}`, 'archived'],
    ]),
  );

describe('item and top-up archives one by one', () => {
  it('both served: PATCH status=archived (documented, same cost), DELETE never sent nor probed', async () => {
    const h = await seeded({ deleteArchives: true });
    catalogue(h, N - 1);
    const run = await h.reconcile();
    expect(run.report.outcome).toBe('converged');
    expect(outcomes(run)).toEqual(archivedAll([N - 1]));
    const routes = requestsByRoute(h.sandbox);
    expect(routes['PATCH /api/v1/items/{identifier}']).toBe(1);
    expect(routes['PATCH /api/v1/top-ups/{identifier}']).toBe(1);
    expect(routes['DELETE /api/v1/items/{identifier}']).toBeUndefined();
    expect(routes['DELETE /api/v1/top-ups/{identifier}']).toBeUndefined();
    const caps = await capabilities(h);
    expect(caps.get(CAPABILITIES.itemArchiveByPatch)).toBe(true);
    expect(caps.get(CAPABILITIES.itemDelete)).toBeUndefined();
  });

  it('PATCH status=archived refused, DELETE served: probed once each, the rest by DELETE, remembered', async () => {
    const h = await seeded({ statusArchivedRefused: true, deleteArchives: true });
    catalogue(h, 1); // 3 items and 3 top-ups removed
    const run = await h.reconcile({ allowMassArchive: true });
    expect(run.report.outcome).toBe('converged');
    expect(outcomes(run)).toEqual(archivedAll([1, 2, 3]));
    let routes = requestsByRoute(h.sandbox);
    // Per kind: the bulk routes probed and refused (404), PATCH probed on one offer (422), then DELETE for all.
    expect(routes['PATCH /api/v1/items/{identifier}']).toBe(1);
    expect(routes['DELETE /api/v1/items/{identifier}']).toBe(3);
    expect(routes['PATCH /api/v1/top-ups/{identifier}']).toBe(1);
    expect(routes['DELETE /api/v1/top-ups/{identifier}']).toBe(3);
    expect(statusOf(h, 'items')).toEqual({
      'it-0': 'listed',
      'it-1': 'archived',
      'it-2': 'archived',
      'it-3': 'archived',
    });
    expect(statusOf(h, 'topUps')).toMatchObject({ 'tu-1': 'archived', 'tu-2': 'archived', 'tu-3': 'archived' });
    const caps = await capabilities(h);
    expect(caps.get(CAPABILITIES.itemArchiveByPatch)).toBe(false);
    expect(caps.get(CAPABILITIES.topUpArchiveByPatch)).toBe(false);
    expect(caps.get(CAPABILITIES.itemDelete)).toBe(true);
    expect(caps.get(CAPABILITIES.topUpDelete)).toBe(true);
    // Each offer's story names the route that archived it (and the prober's refused PATCH before it).
    const stories = await Promise.all(['it-1', 'it-2', 'it-3'].map((id) => archiveEvents(h!, id)));
    expect(stories.flat().filter((e) => e.outcome === 'ok')).toEqual(
      Array(3).fill({ route: 'DELETE /api/v1/items/:id', outcome: 'ok' }),
    );
    expect(stories.flat().filter((e) => e.outcome === 'refused')).toEqual([
      { route: 'PATCH /api/v1/items/:id', outcome: 'refused' },
    ]);

    // The next run: archived offers stay as they are, nothing re-created, nothing archived again.
    h.sandbox.resetCounters();
    const next = await h.reconcile();
    expect(next.report.outcome).toBe('converged');
    expect(outcomes(next)).toEqual({});
    expect(h.writes()).toBe(0);

    // Remembered: the next archive goes straight to DELETE.
    catalogue(h, 0);
    h.sandbox.resetCounters();
    const last = await h.reconcile({ allowMassArchive: true });
    expect(outcomes(last)).toEqual(archivedAll([0]));
    routes = requestsByRoute(h.sandbox);
    expect(routes['PATCH /api/v1/items/{identifier}']).toBeUndefined();
    expect(routes['DELETE /api/v1/items/{identifier}']).toBe(1);
    expect(h.sandbox.dump().items).toHaveLength(N);
  });

  it('archived by a DELETE that removes it: the next run neither re-creates, archives nor looks it up', async () => {
    const h = await seeded({ statusArchivedRefused: true, deleteArchives: true, deleteRemoves: true });
    catalogue(h, 2);
    const run = await h.reconcile({ allowMassArchive: true });
    expect(outcomes(run)).toEqual(archivedAll([2, 3]));
    expect(Object.keys(statusOf(h, 'items'))).toEqual(['it-0', 'it-1']);
    h.sandbox.resetCounters();
    const next = await h.reconcile();
    expect(next.report.outcome).toBe('converged');
    expect(outcomes(next)).toEqual({});
    expect(h.writes()).toBe(0);
    const routes = requestsByRoute(h.sandbox);
    expect(routes['GET /api/v1/items/{identifier}']).toBeUndefined();
    expect(routes['GET /api/v1/top-ups/{identifier}']).toBeUndefined();
  });

  it('DELETE remembered served but now refused (405): each offer falls back to PATCH, nothing lost', async () => {
    const h = await seeded({ statusArchivedRefused: true, deleteArchives: true });
    catalogue(h, 3);
    await h.reconcile();
    // The marketplace drops DELETE and takes status archived again.
    h.sandbox.setRepresentation({});
    catalogue(h, 0);
    h.sandbox.resetCounters();
    const run = await h.reconcile({ allowMassArchive: true });
    expect(run.report.outcome).toBe('converged');
    expect(outcomes(run)).toEqual(archivedAll([0, 1, 2]));
    expect(Object.values(statusOf(h, 'items'))).toEqual(['archived', 'archived', 'archived', 'archived']);
    expect(Object.values(statusOf(h, 'topUps'))).toEqual(['archived', 'archived', 'archived', 'archived']);
    expect(requestsByRoute(h.sandbox)['PATCH /api/v1/items/{identifier}']).toBe(3);
    const caps = await capabilities(h);
    expect(caps.get(CAPABILITIES.itemDelete)).toBe(false);
    expect(caps.get(CAPABILITIES.itemArchiveByPatch)).toBe(true);
  });

  it('both refused: each offer failed once, naming both routes; archived once the marketplace takes it', async () => {
    const h = await seeded({ statusArchivedRefused: true });
    catalogue(h, 2);
    const run = await h.reconcile({ allowMassArchive: true });
    const out = outcomes(run);
    expect(out).toEqual({
      'item:it-2': 'failed',
      'item:it-3': 'failed',
      'topup:tu-2': 'failed',
      'topup:tu-3': 'failed',
    });
    const failed = run.report.outcomes.find((o) => o.externalId === 'it-3');
    expect(failed?.message).toMatch(/status is invalid.*DELETE \/items\/\{id\} not served either/);
    expect(Object.values(statusOf(h, 'items'))).toEqual(['listed', 'listed', 'listed', 'listed']);
    const caps = await capabilities(h);
    expect(caps.get(CAPABILITIES.itemArchiveByPatch)).toBe(false);
    expect(caps.get(CAPABILITIES.itemDelete)).toBe(false);
    // The prober's PATCH is not sent twice: one per offer, and one DELETE probe.
    expect(requestsByRoute(h.sandbox)['PATCH /api/v1/items/{identifier}']).toBe(2);
    expect(requestsByRoute(h.sandbox)['DELETE /api/v1/items/{identifier}']).toBe(1);

    h.sandbox.setRepresentation({});
    const next = await h.reconcile({ allowMassArchive: true });
    expect(outcomes(next)).toEqual(archivedAll([2, 3]));
    expect((await capabilities(h)).get(CAPABILITIES.itemArchiveByPatch)).toBe(true);
  });

  it('a refused PATCH status=archived is asked again after reprobeAfterHours', async () => {
    let now = Date.now();
    const h = await seeded(
      { statusArchivedRefused: true, deleteArchives: true },
      { capabilities: { reprobeAfterHours: 24 } },
    );
    h.now = () => now;
    catalogue(h, 3);
    await h.reconcile();
    expect((await capabilities(h)).get(CAPABILITIES.itemArchiveByPatch)).toBe(false);
    h.sandbox.setRepresentation({ deleteArchives: true });
    now += 25 * 3_600_000;
    catalogue(h, 2);
    h.sandbox.resetCounters();
    const run = await h.reconcile();
    expect(outcomes(run)).toEqual(archivedAll([2]));
    const routes = requestsByRoute(h.sandbox);
    expect(routes['PATCH /api/v1/items/{identifier}']).toBe(1);
    expect(routes['DELETE /api/v1/items/{identifier}']).toBeUndefined();
    expect((await capabilities(h)).get(CAPABILITIES.itemArchiveByPatch)).toBe(true);
  });

  it('a 404 to DELETE: the route refused when the offer exists, the offer forgotten when it does not', async () => {
    const h = await seeded({ statusArchivedRefused: true, deleteArchives: true, deleteRemoves: true });
    catalogue(h, 3);
    await h.reconcile();
    expect((await capabilities(h)).get(CAPABILITIES.itemDelete)).toBe(true);
    // A DELETE whose answer is lost and whose retry finds the offer gone: skipped, the route still served.
    const lostAnswer = (client: MarketplaceClient) =>
      overrideMethod(client, 'items', 'archive', async (original, ...args) => {
        await original(...args);
        return original(...args);
      });
    catalogue(h, 2);
    const gone = await h.reconcile({}, undefined, lostAnswer);
    expect(outcomes(gone)).toMatchObject({ 'item:it-2': 'skipped', 'topup:tu-2': 'archived' });
    expect((await capabilities(h)).get(CAPABILITIES.itemDelete)).toBe(true);
    // A 404 from a marketplace without the route, for an offer its GET finds: the route is refused.
    h.sandbox.setRepresentation({});
    const noRoute = (client: MarketplaceClient) =>
      overrideMethod(client, 'items', 'archive', async () => {
        throw new NotFoundError({ method: 'DELETE', path: '/api/v1/items/2', status: 404 }, 'The route was not found.');
      });
    catalogue(h, 1);
    const refused = await h.reconcile({}, undefined, noRoute);
    expect(outcomes(refused)).toMatchObject({ 'item:it-1': 'archived' });
    expect((await capabilities(h)).get(CAPABILITIES.itemDelete)).toBe(false);
  });

  it('status lists the archive routes learnt with the other capabilities', async () => {
    const h = await seeded({ statusArchivedRefused: true, deleteArchives: true });
    catalogue(h, 3);
    await h.reconcile();
    const r = await runMain(['status'], {
      cwd: h.dir,
      env: {
        PATH: process.env.PATH,
        OFFERSYNC_BASE_URL: h.sandbox.url,
        OFFERSYNC_API_KEY: TEST_KEY,
        OFFERSYNC_CATALOGUE_DIR: h.catalogueDir,
        OFFERSYNC_STATE_DB: h.statePath,
        OFFERSYNC_LOG_LEVEL: 'warn',
      },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Marketplace capabilities learnt:');
    expect(r.stdout).toMatch(/PATCH \/items\/\{id\} \{status: archived\}: not served \(422: .*\)/);
    expect(r.stdout).toMatch(/DELETE \/items\/\{id\}: usable/);
    expect(r.stdout).toMatch(/DELETE \/top-ups\/\{id\}: usable/);
  });
});
