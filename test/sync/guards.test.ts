// The mass-archive guard as a table: its limit at the boundaries of each of its terms, half of the managed offers
// included, and the rule it names when it stops a run.
import { describe, expect, it } from 'vitest';
import { archiveLimit, type GuardOptions, massArchiveVerdict } from '../../src/sync/guards.ts';

const defaults: GuardOptions = { maxArchive: null, maxArchivePercent: 10, maxArchiveMin: 25 };

describe('mass-archive guard', () => {
  it.each([
    // [managed offers, options, limit]
    [0, defaults, 0],
    [1, defaults, 0],
    [3, defaults, 1],
    [30, defaults, 15],
    [50, defaults, 25],
    [250, defaults, 25],
    [300, defaults, 30],
    [301, defaults, 31],
    [1000, { ...defaults, maxArchivePercent: 5 }, 50],
    [1000, { ...defaults, maxArchiveMin: 200 }, 200],
    [1000, { ...defaults, maxArchiveMin: 800 }, 500],
    [1000, { ...defaults, maxArchive: 3 }, 3],
    [1000, { ...defaults, maxArchive: 900 }, 500],
    [0, { ...defaults, maxArchive: 0 }, 0],
  ] as const)('with %i managed offers and %o the limit is %i', (managed, opts, limit) => {
    expect(archiveLimit(managed, opts)).toBe(limit);
  });

  it.each([
    // [archives, managed, options, tripped, rule]
    [1, 3, defaults, false, undefined],
    [2, 3, defaults, true, 'half'],
    [1, 2, defaults, false, undefined],
    [1, 1, defaults, true, 'half'],
    [5, 30, defaults, false, undefined],
    [15, 30, defaults, false, undefined],
    [16, 30, defaults, true, 'half'],
    [25, 30, defaults, true, 'half'],
    [25, 50, defaults, false, undefined],
    [26, 50, defaults, true, 'half'],
    [30, 300, defaults, false, undefined],
    [31, 300, defaults, true, 'share'],
    [3, 1000, { ...defaults, maxArchive: 3 }, false, undefined],
    [4, 1000, { ...defaults, maxArchive: 3 }, true, 'share'],
  ] as const)('%i archives of %i managed offers (%o): tripped %s by %s', (archives, managed, opts, tripped, rule) => {
    const verdict = massArchiveVerdict(archives, managed, opts, false);
    expect(verdict).toMatchObject({ tripped, archives, limit: archiveLimit(managed, opts) });
    expect(verdict.rule).toBe(rule);
    expect(verdict.message === undefined).toBe(!tripped);
  });

  it('says what it counted and how to go through, and lets --allow-mass-archive pass', () => {
    const verdict = massArchiveVerdict(40, 300, defaults, false);
    expect(verdict.message).toMatch(/archive 40 offers, more than the limit of 30/);
    expect(verdict.message).toMatch(/10% of 300 managed offers, at least 25/);
    expect(verdict.message).toMatch(/--allow-mass-archive/);
    expect(massArchiveVerdict(40, 300, defaults, true)).toEqual({ tripped: false, archives: 40, limit: 30 });
  });

  it('a small shop cut short: names the half rule and the files the catalogue lost whole', () => {
    const loss = { empty: false, files: [{ file: 'items/stock.csv', offers: 25 }] };
    const verdict = massArchiveVerdict(25, 30, defaults, false, loss);
    expect(verdict.message).toMatch(/would archive 25 of 30 managed offers, more than half of them/);
    expect(verdict.message).toMatch(/lost whole files: every offer of items\/stock\.csv \(25\) is gone/);
    expect(massArchiveVerdict(25, 30, defaults, true).tripped).toBe(false);
  });

  it('an empty catalogue says so', () => {
    const verdict = massArchiveVerdict(3, 3, defaults, false, { empty: true, files: [] });
    expect(verdict.message).toMatch(/The catalogue came out empty/);
  });
});
