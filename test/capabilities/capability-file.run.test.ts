// What offersync learnt of the marketplace outlives a lost state db: the key the top-up bulk route reads, learnt
// once from its 422, is not learnt again through a second refused write after state.db is deleted.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readCapabilityFile } from '../../src/capabilities/capability-file.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const topUps = (price: number) =>
  `${[1, 2, 3]
    .map((i) => JSON.stringify({ external_id: `tu-${i}`, offer_title: `${i}00 gems`, price: price + i }))
    .join('\n')}\n`;

const refusedBulk = (harness: Harness) =>
  harness.sandbox.counters().byRoute['POST /api/v1/top-ups/bulk-update']?.['422'] ?? 0;

describe('the capability file beside the state db', () => {
  it('keeps the learnt bulk key: after state.db is deleted no bulk write is refused again', async () => {
    h = await createHarness({ sandbox: { bulk: { updateKey: 'topups' } } });
    h.write('top-ups/t.ndjson', topUps(100));
    await h.reconcile();
    h.write('top-ups/t.ndjson', topUps(200));
    h.sandbox.resetCounters();
    await h.reconcile({ allowPriceChange: true });
    expect(refusedBulk(h)).toBe(1); // learnt from the 422 naming the key
    const file = `${h.statePath}.capabilities.json`;
    expect(readCapabilityFile(file).some((r) => r.detail === 'topups')).toBe(true);
    expect(readFileSync(file, 'utf8')).not.toContain('test-key');

    for (const f of ['', '-wal', '-shm']) rmSync(`${h.statePath}${f}`, { force: true });
    h.write('top-ups/t.ndjson', topUps(300));
    h.sandbox.resetCounters();
    await h.reconcile({ allowPriceChange: true });
    expect(refusedBulk(h)).toBe(0);
    expect(h.sandbox.dump().topUps.map((t) => t.price)).toEqual([301, 302, 303]);
    expect(existsSync(file)).toBe(true);
  });
});
