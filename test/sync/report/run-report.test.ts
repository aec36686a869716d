// A run's outcomes counted per kind, every outcome present in a kind's row, and flattened for the runs table
// without the zeros; an offer reported more than once kept once, with the outcome that says most.
import { describe, expect, it } from 'vitest';
import {
  countOutcomes,
  flatCounts,
  NEEDS_ATTENTION,
  type OfferOutcome,
  oneOutcomePerOffer,
} from '../../../src/sync/report/run-report.ts';

describe('run report counts', () => {
  it('counts outcomes per kind, with a zero for each outcome not seen', () => {
    const counts = countOutcomes([
      { kind: 'item', externalId: 'a', outcome: 'created' },
      { kind: 'item', externalId: 'b', outcome: 'created' },
      { kind: 'item', externalId: 'c', outcome: 'failed' },
      { kind: 'image', externalId: 'sha', outcome: 'uploaded' },
    ]);
    expect(Object.keys(counts)).toEqual(['item', 'image']);
    // A row holds every outcome, in the order the summary prints its columns.
    expect(Object.keys(counts.item!)).toEqual([
      'created',
      'updated',
      'archived',
      'adopted',
      'uploaded',
      'unchanged',
      'sold',
      'blocked',
      'held',
      'invalid',
      'failed',
      'skipped',
    ]);
    expect(counts.item).toMatchObject({ created: 2, failed: 1, updated: 0, held: 0, skipped: 0 });
    expect(counts.image).toMatchObject({ uploaded: 1, created: 0 });
    expect(countOutcomes([])).toEqual({});
  });

  it('flattens the counts as kind.outcome, leaving zeros out', () => {
    const counts = countOutcomes([
      { kind: 'account', externalId: 'a', outcome: 'created' },
      { kind: 'topup', externalId: 'b', outcome: 'held' },
      { kind: 'topup', externalId: 'c', outcome: 'held' },
    ]);
    expect(flatCounts(counts)).toEqual({ 'account.created': 1, 'topup.held': 2 });
  });
});

describe('one outcome per offer', () => {
  const o = (over: Partial<OfferOutcome> & Pick<OfferOutcome, 'outcome'>): OfferOutcome => ({
    kind: 'item',
    externalId: 'gold-1',
    ...over,
  });

  it('keeps the outcome that says most of what the seller must do, in the place first reported', () => {
    const order = [
      'failed',
      'invalid',
      'blocked',
      'held',
      'created',
      'updated',
      'archived',
      'adopted',
      'sold',
      'uploaded',
      'skipped',
      'unchanged',
    ] as const;
    // Each outcome against the one after it, reported in both orders.
    for (const [i, better] of order.slice(0, -1).entries()) {
      const worse = order[i + 1]!;
      expect(oneOutcomePerOffer([o({ outcome: worse }), o({ outcome: better })]).map((x) => x.outcome)).toEqual([
        better,
      ]);
      expect(oneOutcomePerOffer([o({ outcome: better }), o({ outcome: worse })]).map((x) => x.outcome)).toEqual([
        better,
      ]);
    }
    const got = oneOutcomePerOffer([
      o({ outcome: 'unchanged' }),
      o({ externalId: 'other', outcome: 'created' }),
      o({ outcome: 'invalid', message: 'price: not a number' }),
    ]);
    expect(got).toEqual([
      o({ outcome: 'invalid', message: 'price: not a number' }),
      o({ externalId: 'other', outcome: 'created' }),
    ]);
  });

  it('tells offers apart by kind and external_id', () => {
    const got = oneOutcomePerOffer([
      o({ outcome: 'created' }),
      o({ kind: 'topup', outcome: 'failed' }),
      o({ externalId: 'gold-2', outcome: 'failed' }),
    ]);
    expect(got.map((x) => [x.kind, x.externalId, x.outcome])).toEqual([
      ['item', 'gold-1', 'created'],
      ['topup', 'gold-1', 'failed'],
      ['item', 'gold-2', 'failed'],
    ]);
  });

  it('keeps every whole-file problem, even two of one file', () => {
    const file = (message: string): OfferOutcome => ({
      kind: 'file',
      externalId: '(file)',
      outcome: 'invalid',
      file: 'items/a.json',
      message,
    });
    expect(oneOutcomePerOffer([file('not JSON'), file('not JSON'), file('too large')])).toEqual([
      file('not JSON'),
      file('not JSON'),
      file('too large'),
    ]);
  });

  it('joins the messages of one outcome (two errors of one entry), each once', () => {
    const got = oneOutcomePerOffer([
      o({ outcome: 'invalid', file: 'items/a.json:3', message: 'price: not a number' }),
      o({ outcome: 'invalid', file: 'items/a.json:3', message: 'stock: negative' }),
    ]);
    expect(got).toEqual([
      o({ outcome: 'invalid', file: 'items/a.json:3', message: 'price: not a number; stock: negative' }),
    ]);
  });

  it('joins the places of one message about two places (a duplicated external_id)', () => {
    const got = oneOutcomePerOffer([
      o({ outcome: 'invalid', file: 'items/a.json:3', message: 'duplicate external_id, also at items/b.json:7:2' }),
      o({ outcome: 'invalid', file: 'items/b.json:7', message: 'duplicate external_id, also at items/a.json:3:2' }),
    ]);
    expect(got).toEqual([
      o({
        outcome: 'invalid',
        file: 'items/a.json:3, items/b.json:7',
        message: 'duplicate external_id, also at items/b.json:7:2',
      }),
    ]);
  });

  it('takes the message of a second report when the first had none, and joins two messages', () => {
    expect(
      oneOutcomePerOffer([
        o({ outcome: 'failed' }),
        o({ outcome: 'failed', file: 'items/a.json', message: 'refused' }),
      ]),
    ).toEqual([o({ outcome: 'failed', message: 'refused' })]);
    expect(
      oneOutcomePerOffer([
        o({ outcome: 'failed', message: 'refused' }),
        o({ outcome: 'failed', file: 'items/a.json', message: 'refused again' }),
      ]),
    ).toEqual([o({ outcome: 'failed', file: 'items/a.json', message: 'refused; refused again' })]);
    expect(
      oneOutcomePerOffer([
        o({ outcome: 'failed', message: 'refused' }),
        o({ outcome: 'failed', file: 'items/a.json' }),
      ]),
    ).toEqual([o({ outcome: 'failed', message: 'refused' })]);
  });

  it('keeps the file once when both reports name the same', () => {
    const got = oneOutcomePerOffer([
      o({ outcome: 'failed', file: 'items/a.json', message: 'one' }),
      o({ outcome: 'failed', file: 'items/a.json', message: 'two' }),
    ]);
    expect(got).toEqual([o({ outcome: 'failed', file: 'items/a.json', message: 'one; two' })]);
  });

  it('a worse outcome reported later is dropped, its message with it', () => {
    expect(
      oneOutcomePerOffer([
        o({ outcome: 'failed', message: 'refused' }),
        o({ outcome: 'skipped', message: 'not sent' }),
      ]),
    ).toEqual([o({ outcome: 'failed', message: 'refused' })]);
  });
});

describe('outcomes that need the seller', () => {
  it('are failed, invalid, blocked and held', () => {
    expect([...NEEDS_ATTENTION].sort()).toEqual(['blocked', 'failed', 'held', 'invalid']);
  });
});
