// A run's outcomes counted per kind, every outcome present in a kind's row, and flattened for the runs table
// without the zeros.
import { describe, expect, it } from 'vitest';
import { countOutcomes, flatCounts } from '../../src/sync/run-report.ts';

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
