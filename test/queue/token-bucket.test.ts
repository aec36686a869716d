import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../src/queue/token-bucket.ts';

const T0 = 1_000_000;

describe('TokenBucket', () => {
  it('starts full: the first `capacity` takes are granted at once, then it says how long to wait', () => {
    const b = new TokenBucket({ ratePerSec: 10, capacity: 3, now: T0 });
    expect([b.take(T0), b.take(T0), b.take(T0)]).toEqual([0, 0, 0]);
    expect(b.take(T0)).toBe(100);
    expect(b.take(T0 + 40)).toBe(60);
    expect(b.take(T0 + 100)).toBe(0);
  });

  it.each([
    // rate, capacity, steps [msSinceStart, expected take result]
    [
      2,
      1,
      [
        [0, 0],
        [0, 500],
        [499, 1],
        [500, 0],
        [1000, 0],
        [1000, 500],
      ],
    ],
    [50, 50, [[0, 0]]],
    [
      0.5,
      1,
      [
        [0, 0],
        [0, 2000],
        [1999, 1],
        [2000, 0],
      ],
    ],
    [
      1000,
      1,
      [
        [0, 0],
        [0, 1],
        [1, 0],
      ],
    ],
  ] as const)('rate %f/s, capacity %i', (rate, capacity, steps) => {
    const b = new TokenBucket({ ratePerSec: rate, capacity, now: T0 });
    for (const [at, want] of steps) expect(b.take(T0 + at)).toBe(want);
  });

  it('never holds more than its capacity, however long it was idle', () => {
    const b = new TokenBucket({ ratePerSec: 100, capacity: 5, now: T0 });
    expect(b.tokens(T0 + 3_600_000)).toBe(5);
  });

  it('grants `rate` per second over a long run', () => {
    const b = new TokenBucket({ ratePerSec: 20, capacity: 1, now: T0, tokens: 0 });
    let now = T0;
    let granted = 0;
    while (now < T0 + 10_000) {
      const w = b.take(now);
      if (w === 0) granted++;
      else now += w;
    }
    // at +50 ms, +100 ms ... +9950 ms: the bucket started empty
    expect(granted).toBe(199);
  });

  it('setRate: what accrued before stays, the new rate applies from then on', () => {
    const b = new TokenBucket({ ratePerSec: 10, capacity: 10, now: T0, tokens: 0 });
    b.setRate(1, T0 + 500); // 5 tokens accrued at 10/s
    expect(b.tokens(T0 + 500)).toBeCloseTo(5);
    expect(b.tokens(T0 + 1500)).toBeCloseTo(6);
    expect(b.rate).toBe(1);
    expect(() => b.setRate(0, T0)).toThrow(/ratePerSec/);
  });

  it('a level short of one token by float drift only (1 - 1e-6) grants the token', () => {
    const b = new TokenBucket({ ratePerSec: 10, capacity: 1, now: T0, tokens: 1 - 1e-6 });
    expect(b.take(T0)).toBe(0);
    expect(b.tokens(T0)).toBe(0);
  });

  it('cap: at most the tokens the server says are left, never more than there were, never below zero', () => {
    const b = new TokenBucket({ ratePerSec: 10, capacity: 10, now: T0 });
    b.cap(3, T0);
    expect(b.tokens(T0)).toBe(3);
    b.cap(8, T0);
    expect(b.tokens(T0)).toBe(3);
    b.cap(-2, T0);
    expect(b.tokens(T0)).toBe(0);
    expect(b.tokens(T0 + 100)).toBeCloseTo(1);
  });

  it('reset into the future: nothing accrues before that moment', () => {
    const b = new TokenBucket({ ratePerSec: 10, capacity: 10, now: T0 });
    b.reset(1, T0 + 2000);
    expect(b.tokens(T0 + 1000)).toBe(1);
    expect(b.tokens(T0 + 2000)).toBe(1);
    expect(b.tokens(T0 + 2500)).toBeCloseTo(6);
  });

  it('a clock going backwards adds nothing', () => {
    const b = new TokenBucket({ ratePerSec: 10, capacity: 2, now: T0, tokens: 0 });
    expect(b.take(T0 - 5000)).toBe(100);
    expect(b.tokens(T0)).toBe(0);
  });

  it('rejects a bad rate or capacity', () => {
    expect(() => new TokenBucket({ ratePerSec: 0, capacity: 1, now: T0 })).toThrow(/ratePerSec/);
    expect(() => new TokenBucket({ ratePerSec: 1, capacity: 0, now: T0 })).toThrow(/capacity/);
  });
});
