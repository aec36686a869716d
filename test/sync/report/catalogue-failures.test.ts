// The catalogue's errors as a run reports them: each an invalid outcome addressed file:line:column#pointer with its
// field; warnings are not failures; a targeted run reports those inside its target only.
import { describe, expect, it } from 'vitest';
import { catalogueFailures } from '../../../src/sync/report/catalogue-failures.ts';
import type { CatalogueViewProblem } from '../../../src/sync/plan/catalogue-view.ts';

const price: CatalogueViewProblem = {
  severity: 'error',
  kind: 'item',
  file: 'items/eu.json',
  line: 4,
  column: 12,
  pointer: '/2/price',
  externalId: 'gold-1',
  field: 'price',
  message: 'expected a price',
};
const wholeFile: CatalogueViewProblem = { severity: 'error', kind: 'topup', file: 'top-ups/a.csv', message: 'broken' };
const warning: CatalogueViewProblem = { ...price, severity: 'warning', externalId: 'gold-2' };
const directory: CatalogueViewProblem = { severity: 'error', file: '.', message: 'cannot read the catalogue' };

describe('catalogueFailures', () => {
  it('makes each error an invalid outcome of its offer, or of its file, and leaves warnings out', () => {
    expect(catalogueFailures([price, warning, wholeFile, directory])).toEqual([
      {
        kind: 'item',
        externalId: 'gold-1',
        outcome: 'invalid',
        file: 'items/eu.json:4:12#/2/price',
        message: 'price: expected a price',
      },
      { kind: 'topup', externalId: '(file)', outcome: 'invalid', file: 'top-ups/a.csv', message: 'broken' },
      { kind: 'file', externalId: '(file)', outcome: 'invalid', file: '.', message: 'cannot read the catalogue' },
    ]);
  });

  it('in a targeted run keeps the errors inside the target; a whole-file error only when no --match narrows it', () => {
    const ids = (target: Parameters<typeof catalogueFailures>[1]) =>
      catalogueFailures([price, wholeFile, directory], target).map((f) => f.externalId);
    expect(ids({ kinds: ['item'] })).toEqual(['gold-1']);
    expect(ids({ kinds: ['topup'] })).toEqual(['(file)']);
    expect(ids({ files: ['top-ups/a.csv'] })).toEqual(['(file)']);
    expect(ids({ match: 'gold-*' })).toEqual(['gold-1']);
    expect(ids({ match: 'silver-*' })).toEqual([]);
    // A glob that matches any external_id still names offers, never a whole file.
    expect(ids({ match: '*' })).toEqual(['gold-1']);
    expect(ids({})).toEqual(['gold-1', '(file)', '(file)']);
  });
});
