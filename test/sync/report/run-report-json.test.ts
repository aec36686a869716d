// A run report's JSON a piece at a time: the same text as JSON.stringify of the whole, with no piece holding
// more than a bounded share of the outcomes (the whole text of 100,000 outcomes at once was a first sync's
// peak of memory), and a secret in an outcome still blanked in the file.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REDACTED, registerSecret } from '../../../src/log/scrubber.ts';
import type { OfferOutcome, RunReport } from '../../../src/sync/report/run-report.ts';
import { OUTCOMES_PER_PIECE, runReportJson } from '../../../src/sync/report/run-report-json.ts';
import { readRunReport, writeRunReport } from '../../../src/sync/report/run-report-file.ts';

const RUN_ID = '20261128T101500-abc123';
const outcomes = (n: number, message = 'a "quoted" message, é, \u2028'): OfferOutcome[] =>
  Array.from({ length: n }, (_, i) => ({
    kind: 'item',
    externalId: `gold-${i}`,
    outcome: i % 7 === 0 ? 'failed' : 'created',
    file: 'items/i.ndjson',
    ...(i % 7 === 0 ? { message } : {}),
  }));
const report = (o: OfferOutcome[]): RunReport => ({
  sales: [],
  runId: RUN_ID,
  outcome: 'partial',
  outcomes: o,
  counts: { item: { created: 1 } as RunReport['counts'][string] },
  requests: 3,
  durationMs: 12,
  messages: ['"outcomes":[ in a message'],
});

describe('a run report as JSON, a piece at a time', () => {
  it.each([0, 1, OUTCOMES_PER_PIECE, OUTCOMES_PER_PIECE + 1, 3 * OUTCOMES_PER_PIECE + 5])(
    'is JSON.stringify of the whole report, %i outcomes',
    (n) => {
      const r = report(outcomes(n));
      expect([...runReportJson(r)].join('')).toBe(JSON.stringify(r));
    },
  );

  it('leaves out a field whose value is undefined, as JSON.stringify does', () => {
    const r = { ...report(outcomes(2)), extra: undefined } as RunReport;
    expect([...runReportJson(r)].join('')).toBe(JSON.stringify(r));
  });

  it('no piece holds more than OUTCOMES_PER_PIECE outcomes', () => {
    const r = report(outcomes(20 * OUTCOMES_PER_PIECE));
    const whole = JSON.stringify(r).length;
    const longest = Math.max(...[...runReportJson(r)].map((p) => p.length));
    expect(longest).toBeLessThanOrEqual(whole / 10);
  });

  it('the file of a large report reads back equal, with a secret in an outcome blanked', () => {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-run-report-json-'));
    try {
      const secret = 'hunter2-report-piece-secret';
      registerSecret(secret);
      const statePath = join(dir, 'state.db');
      writeRunReport(statePath, report(outcomes(3 * OUTCOMES_PER_PIECE, `refused: ${secret}`)));
      const back = readRunReport(statePath, RUN_ID);
      expect(back).toEqual(report(outcomes(3 * OUTCOMES_PER_PIECE, `refused: ${REDACTED}`)));
      expect(readFileSync(join(dir, 'runs', `${RUN_ID}.json`), 'utf8')).not.toContain(secret);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
