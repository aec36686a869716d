// The mass-archive guard as a table: its limit at the boundaries of each of its terms, half of the managed offers
// included, and the rule it names when it stops a run.
import { describe, expect, it } from 'vitest';
import {
  archiveLimit,
  archivesByUpdate,
  type GuardOptions,
  massArchiveVerdict,
} from '../../../src/sync/plan/guards.ts';
import { desiredItem } from '../../support/offers.ts';
import { archiveAction, createAction, noopAction, updateAction } from '../../support/plan-actions.ts';

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
    [500, 1000, { ...defaults, maxArchive: 3 }, true, 'share'],
    [501, 1000, { ...defaults, maxArchive: 3 }, true, 'half'],
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

  it.each([
    // [part, tripped]: more than half of a kind or of a file stops the run whatever the shop's size
    [{ scope: 'kind', kind: 'account', managed: 10, archives: 10 }, true],
    [{ scope: 'kind', kind: 'account', managed: 10, archives: 5 }, false],
    [{ scope: 'file', file: 'items/a.xlsx', managed: 3, archives: 2 }, true],
    [{ scope: 'file', file: 'items/a.xlsx', managed: 4, archives: 2 }, false],
  ] as const)('within the shop limit, a part %o: tripped %s (and --allow-mass-archive passes)', (part, tripped) => {
    const verdict = massArchiveVerdict(part.archives, 1000, defaults, false, undefined, [part]);
    expect(verdict.tripped).toBe(tripped);
    if (tripped) expect(verdict.rule).toBe(part.scope);
    expect(massArchiveVerdict(part.archives, 1000, defaults, true, undefined, [part]).tripped).toBe(false);
  });

  it('an empty catalogue says so', () => {
    const verdict = massArchiveVerdict(3, 3, defaults, false, { empty: true, files: [] });
    expect(verdict.message).toMatch(/The catalogue came out empty/);
  });
});

describe('what the guard says', () => {
  it('a fixed limit names guard.maxArchive, not the share', () => {
    const verdict = massArchiveVerdict(4, 1000, { ...defaults, maxArchive: 3 }, false);
    expect(verdict.message).toBe(
      'this run would archive 4 offers, more than the limit of 3 (guard.maxArchive). Nothing was sent. ' +
        'If the catalogue really lost these offers, run again with --allow-mass-archive.',
    );
  });

  it('names the first five files lost whole and how many more', () => {
    const files = Array.from({ length: 7 }, (_, i) => ({ file: `items/f${i}.csv`, offers: i + 1 }));
    const verdict = massArchiveVerdict(28, 30, defaults, false, { empty: false, files });
    expect(verdict.message).toBe(
      'this run would archive 28 of 30 managed offers, more than half of them. The catalogue lost whole files: ' +
        'every offer of items/f0.csv (1), items/f1.csv (2), items/f2.csv (3), items/f3.csv (4), items/f4.csv (5) ' +
        'and 2 more is gone. Nothing was sent. If the catalogue really lost these offers, run again with ' +
        '--allow-mass-archive.',
    );
    const five = massArchiveVerdict(28, 30, defaults, false, { empty: false, files: files.slice(0, 5) });
    expect(five.message).toMatch(/items\/f4\.csv \(5\) is gone\. Nothing was sent/);
  });

  it('an empty catalogue is said before any file', () => {
    const verdict = massArchiveVerdict(3, 3, defaults, false, { empty: true, files: [{ file: 'a.csv', offers: 3 }] });
    expect(verdict.message).toBe(
      'this run would archive 3 of 3 managed offers, more than half of them. The catalogue came out empty: no ' +
        'offer in any file (a moved folder? an empty export?). Nothing was sent. If the catalogue really lost these ' +
        'offers, run again with --allow-mass-archive.',
    );
  });
});

describe('updates that archive', () => {
  const gold = desiredItem('gold-1');
  it('an update whose new status is archived counts as an archive; any other action does not', () => {
    const toArchived = updateAction(gold, 7, undefined, {
      changes: [
        { field: 'price', from: 1, to: 2, why: 'changed' },
        { field: 'status', from: 'listed', to: 'archived', why: 'changed' },
      ],
    });
    expect(archivesByUpdate(toArchived)).toBe(true);
    const toListed = updateAction(gold, 7, undefined, {
      changes: [{ field: 'status', from: 'archived', to: 'listed', why: 'changed' }],
    });
    expect(archivesByUpdate(toListed)).toBe(false);
    const otherField = updateAction(gold, 7, undefined, {
      changes: [{ field: 'title', from: 'archived', to: 'archived', why: 'changed' }],
    });
    expect(archivesByUpdate(otherField)).toBe(false);
    expect(archivesByUpdate(updateAction(gold, 7))).toBe(false);
    expect(archivesByUpdate(archiveAction('item', 'gold-1', 7))).toBe(false);
    expect(archivesByUpdate(createAction(desiredItem('new', { status: 'archived' })))).toBe(false);
    expect(archivesByUpdate(noopAction('archived'))).toBe(false);
  });
});
