// The executor on hand-made plans, against the sandbox through a recording client: the order of the phases
// (uploads, then creates and updates, archives last), one outcome per offer, nothing sent when the guard
// tripped, no archive once stopped, and the progress it reports. reconcile.run.test.ts runs it end to end.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImageRef } from '../../../src/catalogue/desired-offer.ts';
import { silentLogger } from '../../../src/log/logger.ts';
import { type ExecutorDeps, execute } from '../../../src/sync/execute/executor.ts';
import type { Plan, PlanAction } from '../../../src/sync/plan/plan-actions.ts';
import type { SoldCountNote } from '../../../src/sales/unit-sale.ts';
import { ext, PNG } from '../../marketplace/support/contract.ts';
import { captureLog } from '../../support/log-capture.ts';
import { accountBody, itemBody, topUpBody } from '../../support/offers.ts';
import { desiredAccount, desiredItem, desiredTopUp, imageRef } from '../../support/offers.ts';
import { adoptAction, archiveAction, createAction, planOf, updateAction } from '../../support/plan-actions.ts';
import { useSandboxRun } from '../support/sandbox-run.ts';

const { raw, rec, store } = useSandboxRun();
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'offersync-executor-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh sha each: the sandbox keeps one upload per sha. */
const freshImage = (): ImageRef =>
  imageRef('a', { absPath: '/nowhere/a.png', sha256: ext('sha'), sizeBytes: PNG.length });
function deps(over: Partial<ExecutorDeps> = {}): ExecutorDeps {
  return {
    client: rec.client,
    store,
    logger: silentLogger,
    runId: 'run-1',
    statePath: join(dir, 'state.db'),
    options: { createAttempts: 2 },
    readImage: async () => PNG,
    ...over,
  };
}
describe('execute', () => {
  it('archives and prices with the uploads, then the creates; one outcome each, progress to the total', async () => {
    const image = freshImage();
    const [a, i, gone] = [
      desiredAccount(ext('a'), {}, { images: [image] }),
      desiredItem(ext('i'), { price: 321 }),
      ext('i'),
    ];
    const liveI = await raw.items.create(itemBody(i.externalId));
    const liveGone = await raw.items.create(itemBody(gone));
    const progress: [number, number][] = [];
    const out = await execute(
      planOf([
        archiveAction('item', gone, liveGone.id),
        updateAction(i, liveI.id, { via: 'patch', ifRefused: 'fail' }),
        createAction(a, { imagesPending: true }),
        { type: 'upload', image, neededBy: [a.externalId] },
        { type: 'noop', kind: 'item', externalId: 'quiet', reason: 'unchanged' },
      ]),
      deps({ onProgress: (done, total) => progress.push([done, total]) }),
    );
    // The archive (PATCH status=archived) and the price go while the image uploads; the create waits for it.
    expect(rec.calls.slice(0, 3).sort()).toEqual(['images.upload', 'items.update', 'items.update']);
    expect(rec.calls.at(-1)).toBe('accounts.create');
    expect(out.map((o) => `${o.outcome}:${o.externalId}`).sort()).toEqual(
      [
        `archived:${gone}`,
        `created:${a.externalId}`,
        `updated:${i.externalId}`,
        'unchanged:quiet',
        'uploaded:images/a.png',
      ].sort(),
    );
    expect(progress.map(([d]) => d)).toEqual([1, 2, 3, 4]);
    expect(progress.every(([, total]) => total === 4)).toBe(true);
    const created = await raw.accounts.findByExternalId(a.externalId);
    expect(created?.fields.image_ids).toEqual([(await store.getImage(image.sha256))?.remoteId]);
  });

  it('sends nothing when the mass-archive guard tripped', async () => {
    const gone = ext('i');
    const live = await raw.items.create(itemBody(gone));
    const guard = { tripped: true, archives: 30, limit: 25 };
    const out = await execute(
      planOf([archiveAction('item', gone, live.id), createAction(desiredItem(ext('i')))], { guard }),
      deps(),
    );
    expect(rec.calls).toEqual([]);
    expect(out).toEqual([]);
    expect((await raw.items.get({ id: live.id })).status).toBe('listed');
  });

  it('an offer whose image failed to upload is not created; the others are', async () => {
    const image = freshImage();
    const [a, b] = [desiredAccount(ext('a'), {}, { images: [image] }), desiredAccount(ext('a'))];
    const out = await execute(
      planOf([
        { type: 'upload', image, neededBy: [a.externalId] },
        createAction(a, { imagesPending: true }),
        createAction(b),
      ]),
      deps({
        readImage: async () => {
          throw new Error('unreadable');
        },
      }),
    );
    expect(rec.calls).toEqual(['accounts.create']);
    expect(out.find((o) => o.externalId === a.externalId)).toMatchObject({ outcome: 'failed' });
    expect(out.find((o) => o.externalId === b.externalId)).toMatchObject({ outcome: 'created' });
  });

  it('an adoption followed by an update records the mapping and reports once, as the update', async () => {
    const i = desiredItem(ext('i'), { price: 777 });
    const live = await raw.items.create(itemBody(i.externalId));
    const remote = { id: live.id, externalId: i.externalId, status: 'listed', fields: {} };
    const upd = { ...updateAction(i, live.id, { via: 'patch', ifRefused: 'fail' }), reason: 'adopted' } as const;
    const adopt: PlanAction = {
      type: 'adopt',
      kind: 'item',
      externalId: i.externalId,
      remote,
      desired: i,
      fields: i.fields,
      reason: 'found',
    };
    const out = await execute(planOf([adopt, upd]), deps());
    expect(rec.calls).toEqual(['items.update']);
    expect(out.map((o) => `${o.outcome}:${o.externalId}`)).toEqual([`adopted:${i.externalId}`]);
    expect((await store.getOffer('item', i.externalId))?.lastApplied).toMatchObject({ price: 777 });
  });

  it('an adoption alone sends nothing and records the live offer as applied', async () => {
    const i = desiredItem(ext('i'));
    const live = await raw.items.create(itemBody(i.externalId));
    const remote = { id: live.id, externalId: i.externalId, status: 'listed', fields: {} };
    const adopt: PlanAction = {
      type: 'adopt',
      kind: 'item',
      externalId: i.externalId,
      remote,
      desired: i,
      fields: i.fields,
      reason: 'found',
    };
    const progress: number[] = [];
    const out = await execute(planOf([adopt]), deps({ onProgress: (done) => progress.push(done) }));
    expect(rec.calls).toEqual([]);
    expect(out.map((o) => `${o.outcome}:${o.externalId}`)).toEqual([`adopted:${i.externalId}`]);
    expect(progress).toEqual([1]);
    expect(await store.getOffer('item', i.externalId)).toMatchObject({ remoteId: live.id, managed: true });
    expect((await store.getOffer('item', i.externalId))?.lastApplied).toMatchObject({ price: 250 });
  });

  it('archives planned in bulk go by their bulk route, the single ones by their own call', async () => {
    const [a, b, i] = [ext('a'), ext('a'), ext('i')];
    const [la, lb] = [await raw.accounts.create(accountBody(a)), await raw.accounts.create(accountBody(b))];
    const li = await raw.items.create(itemBody(i));
    const bulk = { via: 'bulk-remove', batch: 0, ifRefused: 'single' } as const;
    const out = await execute(
      planOf([
        { type: 'archive', kind: 'account', externalId: a, remoteId: la.id, route: bulk, reason: 'removed' },
        { type: 'archive', kind: 'account', externalId: b, remoteId: lb.id, route: bulk, reason: 'removed' },
        archiveAction('item', i, li.id),
      ]),
      deps(),
    );
    expect(rec.calls.sort()).toEqual(['accounts.bulkRemove', 'items.update']);
    expect(out.map((o) => `${o.outcome}:${o.externalId}`).sort()).toEqual(
      [`archived:${a}`, `archived:${b}`, `archived:${i}`].sort(),
    );
  });

  it('top-ups planned in bulk go in one call; single-route ones by their own PATCH', async () => {
    const ts = [
      desiredTopUp(ext('t'), { price: 801 }),
      desiredTopUp(ext('t'), { price: 802 }),
      desiredTopUp(ext('t'), { price: 803 }),
    ];
    const lives = await Promise.all(ts.map((t) => raw.topUps.create(topUpBody(t.externalId))));
    const bulk = { via: 'bulk-update', batch: 0, ifRefused: 'patch' } as const;
    const out = await execute(
      planOf([
        updateAction(ts[0]!, lives[0]!.id, bulk),
        updateAction(ts[1]!, lives[1]!.id, bulk),
        updateAction(ts[2]!, lives[2]!.id, { via: 'patch', ifRefused: 'fail' }),
      ]),
      deps(),
    );
    expect(rec.calls.sort()).toEqual(['topUps.bulk', 'topUps.update']);
    expect(out.map((o) => o.outcome)).toEqual(['updated', 'updated', 'updated']);
  });

  it('once stopped, starts no write and no archive', async () => {
    const gone = ext('i');
    const live = await raw.items.create(itemBody(gone));
    const stop = new AbortController();
    stop.abort();
    const out = await execute(
      planOf([createAction(desiredItem(ext('i'))), archiveAction('item', gone, live.id)]),
      deps({ signal: stop.signal }),
    );
    expect(rec.calls).toEqual([]);
    // Archives are not even begun: only the create is reported (as not sent).
    expect(out.map((o) => o.externalId)).not.toContain(gone);
    expect((await raw.items.get({ id: live.id })).status).toBe('listed');
  });

  it('archives still go when another offer failed, and a sale seen by a noop lands in sold.jsonl', async () => {
    const gone = ext('i');
    const live = await raw.items.create(itemBody(gone));
    const bad = desiredItem(ext('i'), { price: -1 });
    const out = await execute(
      planOf([
        createAction(bad),
        archiveAction('item', gone, live.id),
        { type: 'noop', kind: 'item', externalId: 'sold-1', reason: 'sold', remoteId: 5, detail: 'sold' },
      ]),
      deps(),
    );
    expect(out.find((o) => o.externalId === bad.externalId)?.outcome).toBe('failed');
    expect(out.find((o) => o.externalId === gone)?.outcome).toBe('archived');
    const sold = readFileSync(join(dir, 'sold.jsonl'), 'utf8').trim().split('\n');
    expect(sold.map((l) => JSON.parse(l) as { external_id: string }).map((s) => s.external_id)).toEqual(['sold-1']);
  });
});

describe('execute: sales and the guards', () => {
  const seenAt = Date.parse('2026-11-25T06:00:00.000Z');
  /** The lists showed `quantity` more units of item `externalId` (remote id `remoteId`) sold. */
  const unitSale = (
    externalId: string,
    remoteId: number,
    quantity: number,
    kind: 'item' | 'topup' = 'item',
  ): SoldCountNote => ({
    kind,
    externalId,
    soldCount: quantity,
    sale: {
      kind,
      externalId,
      title: 'Gold',
      price: 250,
      currency: kind === 'topup' ? 'USD' : null,
      quantity,
      remoteId,
      soldCount: quantity,
    },
  });
  const soldLines = () =>
    readFileSync(join(dir, 'sold.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('a unit sale the lists showed goes to sold.jsonl, seen at the run time, and into the offer story', async () => {
    const e = ext('i');
    await store.upsertOffer('item', e, { remoteId: 41, managed: true });
    await execute(planOf([], { soldCounts: [unitSale(e, 41, 2)] }), deps({ now: () => seenAt }));
    expect(soldLines()).toEqual([
      expect.objectContaining({ external_id: e, quantity: 2, seen_at: '2026-11-25T06:00:00.000Z' }),
    ]);
    expect((await store.offerHistory('item', e, 10)).map((h) => [h.type, h.quantity, h.at])).toEqual([
      ['sold', 2, seenAt],
    ]);
  });

  it("a top-up's unit sale is told in the top-up's story, not an item's", async () => {
    const e = ext('t');
    await store.upsertOffer('topup', e, { remoteId: 44, managed: true });
    await execute(planOf([], { soldCounts: [unitSale(e, 44, 5, 'topup')] }), deps({ now: () => seenAt }));
    expect(soldLines()).toEqual([expect.objectContaining({ kind: 'topup', external_id: e, quantity: 5 })]);
    expect((await store.offerHistory('topup', e, 10)).map((h) => [h.type, h.quantity, h.at])).toEqual([
      ['sold', 5, seenAt],
    ]);
    expect(await store.offerHistory('item', e, 10)).toEqual([]);
  });

  it('the mass-archive guard tripped: nothing sent, the sales still told, the guard logged with figures', async () => {
    const e = ext('i');
    await store.upsertOffer('item', e, { remoteId: 42, managed: true });
    const log = captureLog('info');
    const guard = { tripped: true, archives: 30, limit: 25, rule: 'share' } as const;
    const gone = ext('i');
    const live = await raw.items.create(itemBody(gone));
    const out = await execute(
      planOf([archiveAction('item', gone, live.id)], { guard, soldCounts: [unitSale(e, 42, 1)] }),
      deps({ logger: log.logger, now: () => seenAt }),
    );
    expect(rec.calls).toEqual([]);
    expect(out).toEqual([]);
    expect(soldLines()).toEqual([expect.objectContaining({ external_id: e, quantity: 1 })]);
    expect(log.find('mass-archive guard tripped: nothing sent')).toEqual([
      expect.objectContaining({ level: 50, archives: 30, limit: 25, rule: 'share' }),
    ]);
    expect(log.find('price guard tripped: nothing sent')).toEqual([]);
    expect((await store.offerHistory('item', e, 10)).map((h) => h.type)).toEqual(['sold']);
  });

  it('the price guard tripped: nothing sent, logged with how many prices and suspects', async () => {
    const log = captureLog('info');
    const priceGuard: Plan['priceGuard'] = {
      tripped: true,
      priced: 10,
      suspect: [{ kind: 'item', externalId: 'x', from: 100, to: 1 }],
      limit: 0,
      rule: 'share',
    };
    const i = desiredItem(ext('i'), { price: 1 });
    const live = await raw.items.create(itemBody(i.externalId));
    const out = await execute(planOf([updateAction(i, live.id)], { priceGuard }), deps({ logger: log.logger }));
    expect(rec.calls).toEqual([]);
    expect(out).toEqual([]);
    expect(log.find('price guard tripped: nothing sent')).toEqual([
      expect.objectContaining({ level: 50, priced: 10, suspect: 1, limit: 0, rule: 'share' }),
    ]);
    expect(log.find('mass-archive guard tripped: nothing sent')).toEqual([]);
  });

  it('an adoption followed by a bulk update is one offer of the progress total, reported as adopted', async () => {
    const t = desiredTopUp(ext('t'), { price: 811 });
    const live = await raw.topUps.create(topUpBody(t.externalId));
    const adopt = adoptAction(t, live.id);
    const bulk = { via: 'bulk-update', batch: 0, ifRefused: 'patch' } as const;
    const progress: [number, number][] = [];
    const out = await execute(
      planOf([adopt, updateAction(t, live.id, bulk, { reason: 'adopted' })]),
      deps({ onProgress: (done, total) => progress.push([done, total]) }),
    );
    expect(rec.calls).toEqual(['topUps.bulk']);
    expect(out.map((o) => `${o.outcome}:${o.externalId}`)).toEqual([`adopted:${t.externalId}`]);
    expect(progress).toEqual([[1, 1]]);
  });

  it('with sales kept in the state db (PostgreSQL), a sale goes there and no sold.jsonl is written', async () => {
    const e = ext('i');
    await store.upsertOffer('item', e, { remoteId: 43, managed: true });
    await execute(planOf([], { soldCounts: [unitSale(e, 43, 3)] }), deps({ salesInState: true, now: () => seenAt }));
    expect(existsSync(join(dir, 'sold.jsonl'))).toBe(false);
    expect((await store.listSales(0)).map((r) => [r.externalId, r.seenAt, r.entry.quantity])).toEqual([[e, seenAt, 3]]);
  });

  it('an adoption beside a create and an update of other offers counts all three in the progress total', async () => {
    const i = desiredItem(ext('i'));
    const live = await raw.items.create(itemBody(i.externalId));
    const other = desiredItem(ext('i'), { price: 655 });
    const otherLive = await raw.items.create(itemBody(other.externalId));
    const adopt = adoptAction(i, live.id);
    const progress: [number, number][] = [];
    await execute(
      planOf([adopt, createAction(desiredItem(ext('i'))), updateAction(other, otherLive.id)]),
      deps({ onProgress: (done, total) => progress.push([done, total]) }),
    );
    expect(progress.map(([, total]) => total)).toEqual([3, 3, 3]);
    expect(progress.map(([done]) => done)).toEqual([1, 2, 3]);
  });

  it("writes what the run told of each offer's story before it returns", async () => {
    const i = desiredItem(ext('i'), { price: 654 });
    const live = await raw.items.create(itemBody(i.externalId));
    await execute(planOf([updateAction(i, live.id)]), deps());
    expect((await store.offerHistory('item', i.externalId, 10)).map((h) => [h.type, h.answer?.outcome])).toEqual([
      ['updated', 'ok'],
    ]);
  });
});
