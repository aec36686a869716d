import { describe, expect, it } from 'vitest';
import { backoffCeiling, backoffDelay } from '../../src/queue/backoff.ts';

describe('backoffCeiling', () => {
  it.each([
    // attempt, base, max, ceiling
    [0, 250, 30_000, 250],
    [1, 250, 30_000, 500],
    [2, 250, 30_000, 1000],
    [6, 250, 30_000, 16_000],
    [7, 250, 30_000, 30_000],
    [2000, 250, 30_000, 30_000],
    [-3, 250, 30_000, 250],
    [3, 0, 30_000, 0],
    [3, 100, 0, 0],
  ])('attempt %i, base %i, max %i -> %i', (attempt, base, max, want) => {
    expect(backoffCeiling(attempt, base, max)).toBe(want);
  });
});

describe('backoffDelay (full jitter)', () => {
  it.each([
    // attempt, random, delay
    [0, 0, 0],
    [0, 0.5, 125],
    [0, 0.999, 249],
    [3, 0.5, 1000],
    [10, 0.5, 15_000],
    [10, 0.999_999, 29_999],
  ])('attempt %i with random %f -> %i ms', (attempt, r, want) => {
    expect(backoffDelay({ attempt, baseMs: 250, maxMs: 30_000, random: () => r })).toBe(want);
  });

  it('stays within [0, ceiling) for every attempt', () => {
    for (let attempt = 0; attempt < 40; attempt++) {
      for (const r of [0, 0.1, 0.5, 0.9, 0.999_999]) {
        const d = backoffDelay({ attempt, baseMs: 250, maxMs: 30_000, random: () => r });
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThan(Math.max(1, backoffCeiling(attempt, 250, 30_000)));
      }
    }
  });
});
