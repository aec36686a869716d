// Per-offer backoff: exponential from the first wait, capped, parked after N refusals of the same
// entry; a changed entry is sent at once.
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/open-state-store.ts';
import {
  afterRefusal,
  backoffDelayMs,
  backoffKey,
  backoffVerdict,
  isFinalRefusal,
  loadBackoffs,
  saveBackoffs,
} from '../../src/sync/offer-backoff.ts';

const MIN = 60_000;
const opts = { initialMs: MIN, maxMs: 360 * MIN, parkAfter: 12 };
const T0 = 1_800_000_000_000;
const refusal = { kind: 'item' as const, externalId: 'it-1', hash: 'h1', status: 409, message: 'taken' };

describe('per-offer backoff', () => {
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
