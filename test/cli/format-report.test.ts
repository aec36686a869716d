import { describe, expect, it } from 'vitest';
import { formatReport } from '../../src/cli/format-report.ts';
import {
  countOutcomes,
  type OfferOutcome,
  oneOutcomePerOffer,
  type RunReport,
} from '../../src/sync/report/run-report.ts';

function report(outcomes: readonly OfferOutcome[], outcome: RunReport['outcome'] = 'partial'): RunReport {
  return {
    runId: '20261124T233549-323414',
    outcome,
    outcomes,
    counts: countOutcomes(outcomes),
    requests: 3,
    durationMs: 10,
    messages: [],
    sales: [],
  };
}

describe('formatReport', () => {
  it('lists each offer by kind, what needs the seller first, and closes with one line of counts', () => {
    const text = formatReport(
      report([
        { kind: 'account', externalId: 'acc-1', outcome: 'created', title: 'Main', price: 129900 },
        { kind: 'account', externalId: 'acc-2', outcome: 'held', file: 'accounts/eu.json', message: 'refused (422)' },
        {
          kind: 'account',
          externalId: 'acc-3',
          outcome: 'updated',
          changes: [
            { field: 'price', from: 1499, to: 1399 },
            { field: 'stock', from: 1, to: 4, patchedBack: true },
            { field: 'credentials', from: null, to: null },
          ],
        },
        { kind: 'topup', externalId: 'tu-1', outcome: 'archived', reason: 'removed from the catalogue' },
        { kind: 'topup', externalId: 'tu-2', outcome: 'unchanged' },
      ]),
    );
    expect(text.split('\n')).toEqual([
      'Accounts:',
      '  ! HELD     acc-2  (accounts/eu.json): refused (422)',
      '  + created  acc-1  "Main", 1299.00',
      '  ~ updated  acc-3',
      '      price: 14.99 (1499 cents) -> 13.99 (1399 cents)',
      '      stock: 1 -> 4  (edited on the marketplace: patched back)',
      '      credentials: changed (not shown)',
      '',
      'Top-ups:',
      '  - archived tu-1  (removed from the catalogue)',
      '',
      'Some offers need attention (listed above); the rest is done. 1 created, 1 updated, 1 archived, 1 unchanged, ' +
        '1 held; 3 request(s) in 0.0 s (run 20261124T233549-323414).',
      '',
    ]);
  });

  it('cuts a long list, pointing at the run in full', () => {
    const many = Array.from(
      { length: 80 },
      (_, i): OfferOutcome => ({
        kind: 'item',
        externalId: `it-${i}`,
        outcome: 'created',
      }),
    );
    const text = formatReport(report(many, 'converged'));
    expect(text.match(/\+ created /g)).toHaveLength(50);
    expect(text).toContain('... and 30 more: see offersync status --run 20261124T233549-323414');
    expect(formatReport(report(many, 'converged'), { limit: Infinity }).match(/\+ created /g)).toHaveLength(80);
  });
});

describe('oneOutcomePerOffer', () => {
  it('counts an offer once: a duplicated external_id is one invalid offer at both lines, not two failures', () => {
    const dup = (line: number, other: number): OfferOutcome => ({
      kind: 'account',
      externalId: 'lol-acc-015',
      outcome: 'invalid',
      file: `accounts/a.csv:${line}`,
      message: `external_id: duplicate external_id 'lol-acc-015': also at accounts/a.csv:${other}`,
    });
    const one = oneOutcomePerOffer([
      dup(16, 17),
      dup(17, 16),
      { kind: 'account', externalId: 'lol-acc-015', outcome: 'skipped', message: 'invalid' },
    ]);
    expect(one).toEqual([{ ...dup(16, 17), file: 'accounts/a.csv:16, accounts/a.csv:17' }]);
    expect(countOutcomes(one).account).toMatchObject({ invalid: 1, skipped: 0, failed: 0 });
  });
});
