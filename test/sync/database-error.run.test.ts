// A marketplace whose database refuses a value its code let through (a stock beyond its INT column) answers with
// PDO's errorInfo, whose text names its tables and columns. The run retries it as any server error, then reports
// the offer failed saying only that the marketplace had a database error: nothing of the errorInfo reaches the
// report, its file, the log or the state db.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessPerTest } from '../support/harness.ts';
import { captureLog } from '../support/log-capture.ts';

const openHarness = harnessPerTest();
const LEAKS = /errorInfo|`shop`|`offers`|Out of range|Incorrect integer|22003|1264/;

const item = (stock: number) => JSON.stringify([{ external_id: 'it-1', title: 'Item 1', price: 100, stock }]);

describe("an update the marketplace's database refuses", () => {
  it('is retried as a server error, then failed as "a database error", and its text is kept nowhere', async () => {
    const h = await openHarness({
      sandbox: { faults: { errorInfoBodies: true } },
      config: { rateLimit: { ratePerSec: 500, burst: 500, maxAttempts: 3 } },
    });
    h.write('items/a.json', item(5));
    await h.reconcile();
    h.write('items/a.json', item(3_000_000_000));
    h.sandbox.resetCounters();
    const log = captureLog('debug');
    const { report } = await h.reconcile({}, log.logger);

    expect(h.sandbox.counters().byRoute['PATCH /api/v1/items/{identifier}']).toEqual({ '500': 3 });
    const failed = report.outcomes.find((o) => o.externalId === 'it-1');
    expect(failed).toMatchObject({ outcome: 'failed' });
    expect(failed?.message).toContain('the marketplace had a database error');

    expect(JSON.stringify(report)).not.toMatch(LEAKS);
    expect(log.lines.length).toBeGreaterThan(0);
    expect(JSON.stringify(log.lines)).not.toMatch(LEAKS);
    const runs = join(dirname(h.statePath), 'runs');
    for (const f of readdirSync(runs)) expect(readFileSync(join(runs, f), 'utf8')).not.toMatch(LEAKS);
    // The state db's bytes: the journal, the offer's story, the backoff, the run history.
    for (const f of readdirSync(dirname(h.statePath)).filter((n) => n.startsWith('state.db')))
      expect(readFileSync(join(dirname(h.statePath), f)).toString('latin1')).not.toMatch(LEAKS);
  });
});
