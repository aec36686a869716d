// Both guards give a message exactly when they stop a run. The reconciler and the report read either field as the
// other (a stop with no message would say nothing; a message with no stop would warn of a run that went through),
// so this holds for every verdict, over a bounded grid of shop sizes, archives and price changes.
import { describe, expect, it } from 'vitest';
import type { OfferKind } from '../../src/catalogue/desired-offer.ts';
import { type GuardPart, massArchiveVerdict } from '../../src/sync/plan/guards.ts';
import { type PriceChange, priceVerdict } from '../../src/sync/plan/price-guard.ts';

const SIZES = [0, 1, 2, 3, 5, 10, 24, 25, 26, 49, 50, 51, 100, 250, 1000];
const ARCHIVE_OPTS = [
  { maxArchive: null, maxArchivePercent: 10, maxArchiveMin: 25 },
  { maxArchive: 3, maxArchivePercent: 10, maxArchiveMin: 25 },
];
const PRICE_OPTS = [
  { maxPriceChangePercent: 10, maxPriceChangeMin: 2 },
  { maxPriceChangePercent: 50, maxPriceChangeMin: 0 },
];

function parts(managed: number, archives: number): GuardPart[][] {
  const kind: OfferKind = 'item';
  return [
    [],
    [{ scope: 'kind', kind, managed, archives }],
    [{ scope: 'file', file: 'items/a.csv', managed: Math.max(1, archives), archives }],
  ];
}

describe('a guard stops a run exactly when it says why', () => {
  it('mass archive: tripped if and only if a message, and a rule with it', () => {
    let verdicts = 0;
    for (const opts of ARCHIVE_OPTS)
      for (const managed of SIZES)
        for (const archives of SIZES.filter((a) => a <= managed))
          for (const ps of parts(managed, archives))
            for (const allow of [false, true]) {
              const v = massArchiveVerdict(archives, managed, opts, allow, undefined, ps);
              verdicts++;
              expect(v.message !== undefined, JSON.stringify({ opts, managed, archives, ps, allow })).toBe(v.tripped);
              expect(v.rule !== undefined).toBe(v.tripped);
              if (allow) expect(v.tripped).toBe(false);
            }
    expect(verdicts).toBeGreaterThan(500);
  });

  it('prices: tripped if and only if a message, and a rule with it', () => {
    const change = (i: number, from: number, to: number): PriceChange => ({
      kind: 'item',
      externalId: `p-${i}`,
      from,
      to,
    });
    const moves: [number, number][] = [
      [2000, 20],
      [2000, 2500],
      [2000, 0],
      [0, 2000],
      [2000, 6000],
      [-100, 0],
    ];
    let verdicts = 0;
    for (const opts of PRICE_OPTS)
      for (const priced of SIZES)
        for (const [from, to] of moves)
          for (const count of [0, 1, 2, 3, 10].filter((c) => c <= Math.max(priced, 1)))
            for (const allow of [false, true]) {
              const changes = Array.from({ length: count }, (_, i) => change(i, from, to));
              const v = priceVerdict(changes, priced, opts, allow);
              verdicts++;
              expect(v.message !== undefined, JSON.stringify({ opts, priced, from, to, count, allow })).toBe(v.tripped);
              expect(v.rule !== undefined).toBe(v.tripped);
              if (allow) expect(v.tripped).toBe(false);
            }
    expect(verdicts).toBeGreaterThan(500);
  });
});
