// Sales are facts told once: a sale that sold.jsonl could not take (here: a folder in its place) stays pending in the
// state db, and the next run that can write the file writes it, once.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { PENDING_SALES_KEY } from '../../src/sales/sales-ledger.ts';
import { harnessPerTest } from '../support/harness.ts';

const openHarness = harnessPerTest();

describe('a sale sold.jsonl could not take', () => {
  it('is written by the next run that can, and never twice', async () => {
    const h = await openHarness();
    h.write('accounts/a.json', JSON.stringify([{ external_id: 'acc-1', title: 'Account', price: 5000 }]));
    await h.reconcile();
    h.sandbox.setStatus('accounts', 'acc-1', 'sold');
    const soldLog = join(dirname(h.statePath), 'sold.jsonl');
    mkdirSync(soldLog); // appending to it fails (EISDIR), as a full disk or a read-only folder would
    const failed = await h.reconcile().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(String(failed)).toMatch(/EISDIR/);
    const store = await openStateStore(h.statePath);
    expect(JSON.parse((await store.getMeta(PENDING_SALES_KEY))!)).toEqual([
      expect.objectContaining({ kind: 'account', external_id: 'acc-1', status: 'sold' }),
    ]);
    await store.close();

    rmSync(soldLog, { recursive: true });
    await h.reconcile();
    const lines = () =>
      readFileSync(soldLog, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { external_id: string });
    expect(lines().map((l) => l.external_id)).toEqual(['acc-1']);
    await h.reconcile();
    expect(lines().map((l) => l.external_id)).toEqual(['acc-1']);
    const after = await openStateStore(h.statePath);
    expect(await after.getMeta(PENDING_SALES_KEY)).toBe('');
    await after.close();
  });
});
