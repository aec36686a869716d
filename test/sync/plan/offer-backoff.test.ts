// Per-offer backoff, the module on its own (src/sync/plan/offer-backoff.ts): the arithmetic (exponential from the
// first wait, capped, parked after N refusals of the same entry; a changed entry is sent at once), then one run's
// view of the backoffs: a final refusal is noted with the marketplace's words and the next attempt, any other error
// leaves the offer alone, a success forgets it, and the map is written back only when the run changed it. A stored
// record that is not a whole backoff is dropped (the offer is sent). Whole runs: plan/offer-backoff.run.test.ts.
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/state/open-state-store.ts';
import {
  afterRefusal,
  backoffDelayMs,
  backoffKey,
  backoffVerdict,
  DEFAULT_OFFER_BACKOFF,
  describeBackoff,
  isFinalRefusal,
  loadBackoffs,
  type OfferBackoff,
  OfferBackoffs,
  saveBackoffs,
} from '../../../src/sync/plan/offer-backoff.ts';

const MIN = 60_000;

describe('per-offer backoff', () => {
  const opts = { initialMs: MIN, maxMs: 360 * MIN, parkAfter: 12 };
  const T0 = 1_800_000_000_000;
  const refusal = { kind: 'item' as const, externalId: 'it-1', hash: 'h1', status: 409, message: 'taken' };

  it.each([
    [1, 1],
    [2, 2],
    [3, 4],
    [9, 256],
    [10, 360],
    [40, 360],
  ])('after %i refusals waits %i min', (n, minutes) => {
    expect(backoffDelayMs(n, opts)).toBe(minutes * MIN);
  });

  it('holds an entry back until its backoff elapses, and sends a changed entry at once', () => {
    const b = afterRefusal(undefined, refusal, T0, opts);
    expect(b).toMatchObject({ refusals: 1, nextAttemptAt: T0 + MIN });
    expect(backoffVerdict(b, 'h1', T0 + MIN - 1)).toMatchObject({ send: false, parked: false });
    expect(backoffVerdict(b, 'h1', T0 + MIN)).toEqual({ send: true });
    expect(backoffVerdict(b, 'h2', T0)).toEqual({ send: true });
    const again = afterRefusal(b, refusal, T0 + MIN, opts);
    expect(again).toMatchObject({ refusals: 2, nextAttemptAt: T0 + 3 * MIN });
    // A refusal of a changed entry starts over.
    expect(afterRefusal(again, { ...refusal, hash: 'h2' }, T0, opts).refusals).toBe(1);
  });

  it('parks an entry after parkAfter refusals, until it changes', () => {
    let b = afterRefusal(undefined, refusal, T0, { ...opts, parkAfter: 3 });
    b = afterRefusal(b, refusal, T0, { ...opts, parkAfter: 3 });
    b = afterRefusal(b, refusal, T0, { ...opts, parkAfter: 3 });
    expect(b.nextAttemptAt).toBeNull();
    expect(backoffVerdict(b, 'h1', T0 + 1000 * 360 * MIN)).toMatchObject({ send: false, parked: true });
    expect(backoffVerdict(b, 'h2', T0)).toEqual({ send: true });
  });

  it.each([
    [409, true],
    [422, true],
    [400, true],
    [404, false],
    [401, false],
    [429, false],
    [408, false],
    [302, false],
    [399, false],
    [500, false],
    [undefined, false],
  ])('status %s is a final refusal: %s', (status, final) => {
    expect(isFinalRefusal(status)).toBe(final);
  });

  it('survives in the state db, and an unreadable value holds nothing back', async () => {
    const store = await openStateStore(':memory:');
    const b = afterRefusal(undefined, refusal, T0, opts);
    await saveBackoffs(store, new Map([[backoffKey('item', 'it-1'), b]]));
    expect((await loadBackoffs(store)).get(backoffKey('item', 'it-1'))).toEqual(b);
    await store.setMeta('offers.backoff', '{oops');
    expect((await loadBackoffs(store)).size).toBe(0);
    store.close();
  });
});

describe("one run's backoffs", () => {
  const T0 = Date.parse('2027-01-15T08:00:00.000Z');
  const opts = { initialMs: MIN, maxMs: 10 * MIN, parkAfter: 3 };
  const entry = { kind: 'item' as const, externalId: 'it-1', hash: 'h1' };
  const refusal = (status: number, message = 'POST /api/v1/items: 422 bad status') =>
    Object.assign(new Error(message), { status });

  function meta(initial?: string) {
    const m = new Map<string, string>();
    if (initial !== undefined) m.set('offers.backoff', initial);
    let writes = 0;
    return {
      getMeta: (k: string) => m.get(k),
      setMeta: (k: string, v: string) => {
        writes++;
        m.set(k, v);
      },
      writes: () => writes,
      stored: () => JSON.parse(m.get('offers.backoff') ?? 'null') as unknown,
    };
  }

  const record: OfferBackoff = {
    kind: 'item',
    externalId: 'it-1',
    hash: 'h1',
    refusals: 2,
    status: 422,
    message: 'bad',
    lastRefusedAt: T0,
    nextAttemptAt: T0 + MIN,
  };

  describe('OfferBackoffs', () => {
    it('notes a final refusal with the whole message, and says when the entry goes again', async () => {
      const store = meta();
      let now = T0;
      const b = await OfferBackoffs.load(store, opts, () => now);
      expect(b.refused(entry, refusal(422))).toBe(
        '; not sent again before 2027-01-15T08:01:00.000Z unless its catalogue entry changes',
      );
      expect(b.all().get('item:it-1')).toEqual({
        ...entry,
        refusals: 1,
        status: 422,
        message: 'POST /api/v1/items: 422 bad status',
        lastRefusedAt: T0,
        nextAttemptAt: T0 + MIN,
      });
      now += MIN;
      b.refused(entry, refusal(422));
      expect(b.refused(entry, refusal(409))).toBe('; refused 3 times: parked until its catalogue entry changes');
      expect(b.all().get('item:it-1')).toMatchObject({ refusals: 3, status: 409, nextAttemptAt: null });
    });

    it('takes a thrown non-Error by its text', async () => {
      const b = await OfferBackoffs.load(meta(), opts, () => T0);
      b.refused(entry, { status: 400, toString: () => 'plain refusal' });
      expect(b.all().get('item:it-1')?.message).toBe('plain refusal');
    });

    it('leaves the offer alone for an error that is not a final refusal of it', async () => {
      const store = meta();
      const b = await OfferBackoffs.load(store, opts, () => T0);
      for (const err of [
        refusal(500),
        refusal(404),
        refusal(429),
        new Error('socket hang up'),
        null,
        'x',
        { status: '422' },
      ])
        expect(b.refused(entry, err)).toBe('');
      expect(b.all().size).toBe(0);
      await b.save();
      expect(store.writes()).toBe(0);
    });

    it('writes back only what changed, once', async () => {
      const store = meta();
      const b = await OfferBackoffs.load(store, opts, () => T0);
      await b.save();
      expect(store.writes()).toBe(0);
      b.refused(entry, refusal(422));
      await b.save();
      await b.save();
      expect(store.writes()).toBe(1);
      expect(store.stored()).toEqual([b.all().get('item:it-1')]);
      // A success of an offer not held back changes nothing; of one held back, forgets it.
      b.succeeded('item', 'other');
      await b.save();
      expect(store.writes()).toBe(1);
      b.succeeded('item', 'it-1');
      expect(b.all().size).toBe(0);
      await b.save();
      expect(store.writes()).toBe(2);
      expect(store.stored()).toEqual([]);
      // Read back by the next run.
      (await OfferBackoffs.load(store, opts, () => T0)).refused(entry, refusal(422));
      expect((await OfferBackoffs.load(store, opts, () => T0)).all().size).toBe(0);
    });

    it('starts from what the state db holds', async () => {
      const store = meta(JSON.stringify([record]));
      const b = await OfferBackoffs.load(store, opts, () => T0 + MIN);
      expect(b.all().get('item:it-1')).toEqual(record);
      b.refused(entry, refusal(422));
      expect(b.all().get('item:it-1')).toMatchObject({ refusals: 3, nextAttemptAt: null });
    });
  });

  describe('loadBackoffs', () => {
    it('keeps a parked record and one with no status', async () => {
      const parked = { ...record, externalId: 'it-2', nextAttemptAt: null, status: null };
      const loaded = await loadBackoffs(meta(JSON.stringify([record, parked])));
      expect([...loaded.keys()]).toEqual(['item:it-1', 'item:it-2']);
      expect(loaded.get('item:it-2')).toEqual(parked);
    });

    it.each([
      ['kind', 1],
      ['externalId', null],
      ['hash', 5],
      ['refusals', '2'],
      ['message', undefined],
      ['lastRefusedAt', '0'],
      ['nextAttemptAt', '1'],
      ['status', '422'],
    ])('drops a record whose %s is %s', async (field, value) => {
      const loaded = await loadBackoffs(
        meta(
          JSON.stringify([
            { ...record, [field]: value },
            { ...record, externalId: 'ok' },
          ]),
        ),
      );
      expect([...loaded.keys()]).toEqual(['item:ok']);
    });

    it('reads nothing from a value that is not a list of records', async () => {
      expect((await loadBackoffs(meta())).size).toBe(0);
      expect((await loadBackoffs(meta(JSON.stringify({ 'item:it-1': record })))).size).toBe(0);
      expect((await loadBackoffs(meta(JSON.stringify([null, 'x', 3])))).size).toBe(0);
    });
  });

  describe('describeBackoff and the defaults', () => {
    it('says what the marketplace said, how often, and when the entry goes again', () => {
      expect(describeBackoff({ ...record, refusals: 1 })).toBe(
        'the marketplace refused it: bad (once); not sent again before 2027-01-15T08:01:00.000Z unless its ' +
          'catalogue entry changes',
      );
      expect(describeBackoff({ ...record, refusals: 10, nextAttemptAt: null })).toBe(
        'the marketplace refused it: bad (10 times); parked until its catalogue entry changes',
      );
    });

    it('waits a minute first, six hours at most, and parks after ten refusals', () => {
      expect(backoffDelayMs(1, DEFAULT_OFFER_BACKOFF)).toBe(MIN);
      expect(backoffDelayMs(20, DEFAULT_OFFER_BACKOFF)).toBe(6 * 60 * MIN);
      expect(DEFAULT_OFFER_BACKOFF.parkAfter).toBe(10);
    });

    it('waits the first delay even for a refusal count below one', () => {
      expect(backoffDelayMs(0, opts)).toBe(MIN);
    });

    it('sends an entry with no record', () => {
      expect(backoffVerdict(undefined, 'h1', T0)).toEqual({ send: true });
    });
  });
});
