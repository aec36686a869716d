// The guard says what it held back: when it stops a run, the summary names the first offers it would have
// archived, once, and a file beside the state db lists all of them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatReport } from '../../../src/cli/format-report.ts';
import { harnessPerTest } from '../../support/harness.ts';

const openHarness = harnessPerTest();

describe('the guard list', () => {
  it('names the first ten held back, writes all of them to a file, archives nothing', async () => {
    const h = await openHarness();
    const ids = Array.from({ length: 30 }, (_, i) => `it-${String(i).padStart(2, '0')}`);
    h.write('items/stock.json', JSON.stringify(ids.map((id) => ({ external_id: id, title: id, price: 100 }))));
    expect((await h.reconcile()).report.outcome).toBe('converged');
    h.write('items/stock.json', '[]');
    h.sandbox.resetCounters();
    const { report } = await h.reconcile();
    expect(report.outcome).toBe('aborted');
    expect(h.writes()).toBe(0);
    const path = `${h.dir}/state/guard-${report.runId}.txt`;
    expect(report.messages[1]).toBe(
      `held back by the guard (not archived): ${ids
        .slice(0, 10)
        .map((id) => `item ${id}`)
        .join(', ')} and 20 more; all 30 are listed in ${path}`,
    );
    expect(readFileSync(path, 'utf8')).toBe(ids.map((id) => `item ${id}\n`).join(''));
    const summary = formatReport(report);
    expect(summary.split('held back by the guard').length - 1).toBe(1);
    expect(summary).toMatch(/would archive 30 of 30 managed offers, more than half of them/);
    expect(summary).toMatch(/The catalogue came out empty/);
  });
});
