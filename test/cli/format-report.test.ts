import { describe, expect, it } from 'vitest';
import { formatReport } from '../../src/cli/format-report.ts';
import { countOutcomes, type OfferOutcome, type RunReport } from '../../src/sync/run-report.ts';

function report(outcomes: readonly OfferOutcome[]): RunReport {
  return {
    runId: 'r1',
    outcome: 'partial',
    outcomes,
    counts: countOutcomes(outcomes),
    requests: 3,
    durationMs: 10,
    messages: [],
    sales: [],
  };
}

describe('formatReport', () => {
  it('counts an offer held back by its backoff in a column of its own, and names it below', () => {
    const text = formatReport(
      report([
        { kind: 'account', externalId: 'acc-1', outcome: 'created' },
        { kind: 'account', externalId: 'acc-2', outcome: 'held', file: 'accounts/eu.json', message: 'refused (422)' },
      ]),
    );
    const [header, row] = text.split('\n');
    expect(header?.trim().split(/\s+/)).toEqual(['created', 'held']);
    expect(row?.trim().split(/\s+/)).toEqual(['accounts', '1', '1']);
    expect(text).toContain('acc-2');
  });
});
