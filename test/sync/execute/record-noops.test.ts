// Actions that send nothing: the outcome each noop reason reports, what it records in the state db, and that
// none of them counts as progress. Adoptions: the mapping recorded, and applied fields only when no update follows.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DesiredItem } from '../../../src/catalogue/desired-offer.ts';
import { silentLogger } from '../../../src/log/logger.ts';
import type { AdoptAction, NoopAction, NoopReason } from '../../../src/sync/plan/plan-actions.ts';
import { recordAdopt, recordNoop } from '../../../src/sync/execute/record-noops.ts';
import { RunContext } from '../../../src/sync/execute/run-context.ts';
import { noopAction } from '../../support/plan-actions.ts';
import { useSandboxRun } from '../support/sandbox-run.ts';

const { rec, store } = useSandboxRun();
let ctx: RunContext;
let progress: number[];

beforeEach(() => {
  progress = [];
  ctx = new RunContext({
    client: rec.client,
    store,
    logger: silentLogger,
    runId: 'run-1',
    createAttempts: 1,
    onProgress: (done) => progress.push(done),
  });
});
afterEach(() => {
  // Noops and adoptions are state only: never a request.
  expect(rec.calls).toEqual([]);
});

const noop = (reason: NoopReason, over: Partial<NoopAction> = {}): NoopAction =>
  noopAction(reason, { detail: `detail of ${reason}`, ...over });
const mapped = async () =>
  await store.upsertOffer('item', 'i-1', { remoteId: 41, remoteStatus: 'listed', managed: true });

describe('noops', () => {
  it.each([
    ['unchanged', 'unchanged', undefined],
    ['blocked', 'blocked', 'detail of blocked'],
    ['drift-reported', 'skipped', 'detail of drift-reported'],
    ['backoff', 'held', 'detail of backoff'],
    ['parked', 'held', 'detail of parked'],
    ['quarantined', 'skipped', 'detail of quarantined'],
    ['invalid', 'skipped', 'detail of invalid'],
    ['unconfirmed', 'skipped', 'detail of unconfirmed'],
  ] as const)('%s is reported %s, and the state row is left as it was', async (reason, outcome, message) => {
    mapped();
    const before = await store.getOffer('item', 'i-1');
    await recordNoop(ctx, noop(reason));
    expect(ctx.outcomes).toEqual([expect.objectContaining({ kind: 'item', externalId: 'i-1', outcome })]);
    expect(ctx.outcomes[0]?.message).toBe(message);
    expect(await store.getOffer('item', 'i-1')).toEqual(before);
    expect(ctx.sold).toEqual([]);
    // A noop is not work: the progress counts the offers sent and the adoptions only.
    expect(progress).toEqual([]);
  });

  it('a reason without detail is reported by its name', async () => {
    await recordNoop(ctx, noop('invalid', { detail: undefined }));
    expect(ctx.outcomes[0]?.message).toBe('invalid');
  });

  it('blocked and drift-reported name the fields not sent', async () => {
    const changes = [{ field: 'price', from: 1, to: 2, why: 'drift' }] as const;
    await recordNoop(ctx, noop('blocked', { changes }));
    await recordNoop(ctx, noop('drift-reported', { changes }));
    expect(ctx.outcomes.map((o) => o.fields)).toEqual([['price'], ['price']]);
  });

  it.each(['sold', 'refunded', 'processing'] as const)(
    '%s: reported sold, recorded, noted once as a sale',
    async (r) => {
      mapped();
      await recordNoop(ctx, noop(r, { remoteId: 41 }));
      expect(ctx.outcomes).toEqual([
        expect.objectContaining({ externalId: 'i-1', outcome: 'sold', message: `detail of ${r}` }),
      ]);
      expect(await store.getOffer('item', 'i-1')).toMatchObject({ remoteId: 41, remoteStatus: r });
      expect(ctx.sold).toEqual([expect.objectContaining({ kind: 'item', external_id: 'i-1', id: 41, status: r })]);
      // Seen again in a later plan of the same run: the state already says so, no second sale.
      await recordNoop(ctx, noop(r, { remoteId: 41 }));
      expect(ctx.sold).toHaveLength(1);
      expect(progress).toEqual([]);
    },
  );

  it('sold, with the offer as the list showed it: its title and price go to the sale', async () => {
    mapped();
    const remote = { id: 41, externalId: 'i-1', status: 'listed', fields: { title: 'Gold', price: 4990 } };
    await recordNoop(ctx, noop('sold', { remoteId: 41, remote }));
    expect(ctx.sold).toEqual([
      expect.objectContaining({ external_id: 'i-1', id: 41, status: 'sold', title: 'Gold', price: 4990 }),
    ]);
    expect(await store.getOffer('item', 'i-1')).toMatchObject({ remoteId: 41, remoteStatus: 'sold' });
  });

  it('sold without a remote id: reported, nothing recorded', async () => {
    await recordNoop(ctx, noop('sold'));
    expect(ctx.outcomes.map((o) => o.outcome)).toEqual(['sold']);
    expect(await store.getOffer('item', 'i-1')).toBeUndefined();
    expect(ctx.sold).toEqual([]);
  });

  it('gone: the state row is forgotten and the offer reported skipped', async () => {
    await mapped();
    await recordNoop(ctx, noop('gone'));
    expect(await store.getOffer('item', 'i-1')).toBeUndefined();
    expect(ctx.outcomes).toEqual([expect.objectContaining({ outcome: 'skipped', message: 'detail of gone' })]);
    // Its story tells it went, and why.
    await ctx.flushEvents();
    expect(await store.offerHistory('item', 'i-1', 10)).toEqual([
      expect.objectContaining({ type: 'gone', detail: 'detail of gone', route: null, runId: 'run-1' }),
    ]);
    expect(progress).toEqual([]);
  });

  it.each(['unmanaged', 'archived'] as const)('%s is not reported at all', async (reason) => {
    await mapped();
    await recordNoop(ctx, noop(reason));
    expect(ctx.outcomes).toEqual([]);
    expect((await store.getOffer('item', 'i-1'))?.remoteStatus).toBe('listed');
  });
});

describe('adoptions', () => {
  const desired: DesiredItem = {
    kind: 'item',
    externalId: 'i-1',
    hash: 'h',
    source: { file: 'items/a.json' },
    fields: { title: 'T', price: 5 },
  };
  const adopt = (remoteId: number): AdoptAction => ({
    type: 'adopt',
    kind: 'item',
    externalId: 'i-1',
    remote: { id: remoteId, externalId: 'i-1', status: 'listed', updatedAt: 1_700_000_000_000, fields: {} },
    desired,
    fields: { title: 'T', price: 5 },
    reason: 'found on the marketplace under its external_id',
  });

  it('alone: maps the offer and records the desired fields as applied, reported adopted', async () => {
    await recordAdopt(ctx, adopt(7), true);
    expect(await store.getOffer('item', 'i-1')).toMatchObject({
      remoteId: 7,
      remoteStatus: 'listed',
      remoteUpdatedAt: 1_700_000_000_000,
      managed: true,
      sourceFile: 'items/a.json',
      lastApplied: { title: 'T', price: 5 },
    });
    expect(ctx.outcomes).toEqual([
      expect.objectContaining({ outcome: 'adopted', externalId: 'i-1', file: 'items/a.json' }),
    ]);
    expect(progress).toEqual([1]);
    await ctx.flushEvents();
    expect(await store.offerHistory('item', 'i-1', 10)).toEqual([
      expect.objectContaining({ type: 'adopted', detail: 'found on the marketplace under its external_id' }),
    ]);
  });

  it('with an update to follow: maps it, records nothing as applied and reports nothing yet', async () => {
    await recordAdopt(ctx, adopt(7), false);
    expect(await store.getOffer('item', 'i-1')).toMatchObject({
      remoteId: 7,
      managed: true,
      lastApplied: null,
      remoteStatus: 'listed',
      remoteUpdatedAt: 1_700_000_000_000,
    });
    expect(ctx.outcomes).toEqual([]);
  });

  it('keeps what was applied to the same offer, forgets what was applied to another one', async () => {
    await store.upsertOffer('item', 'i-1', { remoteId: 7, lastApplied: { price: 4 }, managed: false });
    await recordAdopt(ctx, adopt(7), false);
    expect((await store.getOffer('item', 'i-1'))?.lastApplied).toEqual({ price: 4 });
    await recordAdopt(ctx, adopt(8), false);
    expect(await store.getOffer('item', 'i-1')).toMatchObject({ remoteId: 8, lastApplied: null });
  });
});
