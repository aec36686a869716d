// The mass-archive guard as a table: its limit at the boundaries of each of its three terms.
import { describe, expect, it } from 'vitest';
import { archiveLimit, type GuardOptions, massArchiveVerdict } from '../../src/sync/guards.ts';

const defaults: GuardOptions = { maxArchive: null, maxArchivePercent: 10, maxArchiveMin: 25 };

describe('mass-archive guard', () => {
  it.each([
    // [managed offers, options, limit]
    [0, defaults, 25],
    [250, defaults, 25],
    [300, defaults, 30],
    [301, defaults, 31],
    [1000, { ...defaults, maxArchivePercent: 5 }, 50],
    [1000, { ...defaults, maxArchiveMin: 200 }, 200],
    [1000, { ...defaults, maxArchive: 3 }, 3],
    [0, { ...defaults, maxArchive: 0 }, 0],
  ] as const)('with %i managed offers and %o the limit is %i', (managed, opts, limit) => {
    expect(archiveLimit(managed, opts)).toBe(limit);
  });

  it.each([
    // [archives, managed, options, tripped]
    [25, 0, defaults, false],
    [26, 0, defaults, true],
    [30, 300, defaults, false],
    [31, 300, defaults, true],
    [3, 1000, { ...defaults, maxArchive: 3 }, false],
    [4, 1000, { ...defaults, maxArchive: 3 }, true],
  ] as const)('%i archives of %i managed offers (%o): tripped %s', (archives, managed, opts, tripped) => {
    const verdict = massArchiveVerdict(archives, managed, opts, false);
    expect(verdict).toMatchObject({ tripped, archives, limit: archiveLimit(managed, opts) });
    expect(verdict.message === undefined).toBe(!tripped);
  });

  it('says what it counted and how to go through, and lets --allow-mass-archive pass', () => {
    const verdict = massArchiveVerdict(40, 300, defaults, false);
    expect(verdict.message).toMatch(/archive 40 offers, more than the limit of 30/);
    expect(verdict.message).toMatch(/10% of 300 managed offers, at least 25/);
    expect(verdict.message).toMatch(/--allow-mass-archive/);
    expect(massArchiveVerdict(40, 300, defaults, true)).toEqual({ tripped: false, archives: 40, limit: 30 });
  });
});
