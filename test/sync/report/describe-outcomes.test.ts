// What the seller reads of each write: the executor's outcomes joined with what the plan knew of them (a create's
// title and price, an update's fields old -> new, an archive's reason), matched by kind and external_id.
import { describe, expect, it } from 'vitest';
import { describeOutcomes } from '../../../src/sync/report/describe-outcomes.ts';
import type { OfferOutcome } from '../../../src/sync/report/run-report.ts';
import { desiredAccount, desiredItem, desiredTopUp, imageRef } from '../../support/offers.ts';
import { archiveAction, createAction, noopAction, planOf, updateAction } from '../../support/plan-actions.ts';

const gold = desiredItem('gold-1', { title: 'Gold 1000', price: 2499 }, { source: { file: 'items/gold.json' } });
const rp = desiredTopUp('rp-1', { offer_title: 'RP 1380', price: 999, currency: 'EUR' });
const acc = desiredAccount('acc-1', { price: 4990 });

const outcome = (o: Partial<OfferOutcome> & Pick<OfferOutcome, 'kind' | 'externalId' | 'outcome'>): OfferOutcome => o;

describe('describing outcomes', () => {
  it("a create's title, price and currency as read from the catalogue, its file and why", () => {
    const plan = planOf([createAction(gold), createAction(rp)]);
    const got = describeOutcomes(
      [
        outcome({ kind: 'item', externalId: 'gold-1', outcome: 'created' }),
        outcome({ kind: 'topup', externalId: 'rp-1', outcome: 'created', file: 'top-ups/other.json' }),
      ],
      plan,
    );
    expect(got).toStrictEqual([
      {
        kind: 'item',
        externalId: 'gold-1',
        outcome: 'created',
        file: 'items/gold.json',
        reason: 'new in the catalogue',
        title: 'Gold 1000',
        price: 2499,
      },
      {
        kind: 'topup',
        externalId: 'rp-1',
        outcome: 'created',
        // The executor's file is kept.
        file: 'top-ups/other.json',
        reason: 'new in the catalogue',
        title: 'RP 1380',
        price: 999,
        currency: 'EUR',
      },
    ]);
  });

  it('a create whose fields have no title, price or currency says none', () => {
    const bare = desiredTopUp('bare', { offer_title: undefined, price: undefined, currency: undefined });
    const [got] = describeOutcomes(
      [outcome({ kind: 'topup', externalId: 'bare', outcome: 'created' })],
      planOf([createAction(bare)]),
    );
    expect(got).toStrictEqual({
      kind: 'topup',
      externalId: 'bare',
      outcome: 'created',
      file: 'top-ups/t.json',
      reason: 'new in the catalogue',
    });
  });

  it("an update's fields old -> new, a website edit marked patched back, credentials shown as changed only", () => {
    const plan = planOf([
      updateAction(gold, 7, undefined, {
        changes: [
          { field: 'price', from: 1999, to: 2499, why: 'changed' },
          { field: 'stock', from: 3, to: 5, why: 'drift' },
        ],
        reason: 'drift',
      }),
      updateAction(acc, 8, undefined, { sendCredentials: true }),
    ]);
    const got = describeOutcomes(
      [
        outcome({ kind: 'item', externalId: 'gold-1', outcome: 'updated' }),
        outcome({ kind: 'account', externalId: 'acc-1', outcome: 'updated', file: 'accounts/x.json' }),
      ],
      plan,
    );
    expect(got).toStrictEqual([
      {
        kind: 'item',
        externalId: 'gold-1',
        outcome: 'updated',
        file: 'items/gold.json',
        reason: 'drift',
        changes: [
          { field: 'price', from: 1999, to: 2499 },
          { field: 'stock', from: 3, to: 5, patchedBack: true },
        ],
      },
      {
        kind: 'account',
        externalId: 'acc-1',
        outcome: 'updated',
        file: 'accounts/x.json',
        reason: 'changed',
        changes: [
          { field: 'price', from: 1, to: 4990 },
          { field: 'credentials', from: null, to: null },
        ],
      },
    ]);
  });

  it("an archive's reason", () => {
    const [got] = describeOutcomes(
      [outcome({ kind: 'item', externalId: 'old-1', outcome: 'archived' })],
      planOf([archiveAction('item', 'old-1', 9)]),
    );
    expect(got).toStrictEqual({
      kind: 'item',
      externalId: 'old-1',
      outcome: 'archived',
      reason: 'removed from the catalogue',
    });
  });

  it('an outcome other than the action planned, or of an offer the plan does not write, is left as it is', () => {
    const failed = outcome({ kind: 'item', externalId: 'gold-1', outcome: 'failed', message: 'refused' });
    const createdByUpdate = outcome({ kind: 'topup', externalId: 'rp-1', outcome: 'created' });
    const updatedByArchive = outcome({ kind: 'item', externalId: 'old-1', outcome: 'updated' });
    const archivedByCreate = outcome({ kind: 'account', externalId: 'acc-1', outcome: 'archived' });
    const other = outcome({ kind: 'item', externalId: 'elsewhere', outcome: 'updated' });
    // Same external_id, another kind.
    const otherKind = outcome({ kind: 'topup', externalId: 'gold-1', outcome: 'created' });
    const noop = outcome({ kind: 'item', externalId: 'i-1', outcome: 'unchanged' });
    const image = outcome({ kind: 'image', externalId: 'images/a.png', outcome: 'uploaded' });
    const plan = planOf([
      createAction(gold),
      updateAction(rp, 3),
      archiveAction('item', 'old-1', 9),
      createAction(acc),
      noopAction('unchanged'),
      { type: 'upload', image: imageRef('a'), neededBy: ['account:acc-1'] },
    ]);
    const all = [failed, createdByUpdate, updatedByArchive, archivedByCreate, other, otherKind, noop, image];
    const got = describeOutcomes(all, plan);
    expect(got).toEqual(all);
    for (const [i, o] of got.entries()) expect(o).toBe(all[i]);
  });

  it('a noop planned for an offer does not hide its write', () => {
    // An upload and a noop never stand for an offer's write, whatever the order.
    const plan = planOf([updateAction(gold, 7), noopAction('unchanged', { kind: 'item', externalId: 'gold-1' })]);
    const [got] = describeOutcomes([outcome({ kind: 'item', externalId: 'gold-1', outcome: 'updated' })], plan);
    expect(got?.changes).toEqual([{ field: 'price', from: 1, to: 2499 }]);
  });
});
