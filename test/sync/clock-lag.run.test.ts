// A marketplace whose database stamps updates by another clock than its application stamps creates (the real
// server's database on UTC, its code on Europe/Berlin): a website edit's updated_at reads an hour earlier (or, the
// other way round, later) than the creates around it. The daemon's incremental ticks must still see such an edit
// and a sale within a few ticks, before and after offersync has learnt the clocks, and a tick with nothing new
// must still read one page per kind. Run through the reconciler's incremental path, as each daemon tick runs it.
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/open-state-store.ts';
import type { StateKind } from '../../src/state/records.ts';
import { pastCutoffSlack } from '../support/cutoff-slack.ts';
import { type Harness, harnessPerTest, requestsByRoute, TEST_KEY } from '../support/harness.ts';

const openHarness = harnessPerTest();

/** As the seller would on the marketplace's website: a change of the offer the API's own update route makes. */
async function editOnWebsite(h: Harness, path: string, change: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${h.sandbox.url}/api/v1/${path}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(change),
  });
  expect(res.status).toBe(200);
}

async function meta(h: Harness, key: string): Promise<string | undefined> {
  const store = await openStateStore(h.statePath);
  try {
    return await store.getMeta(key);
  } finally {
    await store.close();
  }
}

async function remoteStatus(h: Harness, kind: StateKind, externalId: string): Promise<string | null | undefined> {
  const store = await openStateStore(h.statePath);
  try {
    return (await store.getOffer(kind, externalId))?.remoteStatus;
  } finally {
    await store.close();
  }
}

const itemTitle = (h: Harness, externalId: string): unknown =>
  h.sandbox.dump().items.find((i) => i.external_id === externalId)?.title;

/** Incremental ticks until `done`, at most `max`; how many it took, or undefined when they never got there. */
async function ticksUntil(h: Harness, done: () => Promise<boolean> | boolean, max = 3): Promise<number | undefined> {
  for (let tick = 1; tick <= max; tick++) {
    await h.reconcile({ mode: 'incremental' });
    if (await done()) return tick;
  }
  return undefined;
}

const items = JSON.stringify(
  [1, 2, 3].map((i) => ({ external_id: `it-${i}`, title: `Item ${i}`, price: 100 * i, stock: 5 })),
);
const accounts = JSON.stringify(
  [1, 2].map((i) => ({ external_id: `acc-${i}`, title: `Account ${i}`, price: 1000 * i })),
);

describe.each([
  { lagSec: 3600, clock: 'behind' },
  { lagSec: -3600, clock: 'ahead' },
])('a marketplace whose update clock is an hour $clock of its create clock', ({ lagSec }) => {
  it('sees a website edit and a sale within 3 ticks, and a quiet tick reads one page per kind', async () => {
    const h = await openHarness({
      sandbox: { representation: { updatedAtLagSec: lagSec, epochTimestamps: true, accountsNullUpdatedAt: true } },
    });
    h.write('items/a.json', items);
    h.write('accounts/a.json', accounts);
    expect((await h.reconcile()).report.outcome).toBe('converged'); // the daemon's first, full run: creates

    // Before offersync has written an update, the update clock is unknown.
    await editOnWebsite(h, 'items/1', { title: 'Edited on the website' });
    expect(await ticksUntil(h, () => itemTitle(h, 'it-1') === 'Item 1')).toBe(1);

    // With the clock learnt from that patch: another edit, and a sale of an account never updated since its create.
    await editOnWebsite(h, 'items/2', { title: 'Edited again' });
    h.sandbox.setStatus('accounts', 'acc-2', 'sold');
    expect(await ticksUntil(h, () => itemTitle(h, 'it-2') === 'Item 2')).toBe(1);
    expect(await remoteStatus(h, 'account', 'acc-2')).toBe('sold');
    // The patches back were updates: their stamps taught the update clock, an hour off ours (give or take the
    // second a stamp is floored to and the time an answer took); the creates, the create clock, on time.
    const learnt = Number(await meta(h, 'clock.offset-ms.update'));
    expect(Math.abs(learnt + lagSec * 1000)).toBeLessThan(3000);
    expect(Math.abs(Number(await meta(h, 'clock.offset-ms.create')))).toBeLessThan(3000);

    // Nothing new: once the last writes lie past the slack, a tick reads the first page of each list and stops.
    await pastCutoffSlack();
    await h.reconcile({ mode: 'incremental' }); // reads from before the last patch
    h.sandbox.resetCounters();
    const quiet = await h.reconcile({ mode: 'incremental' });
    expect(quiet.plan.actions.filter((a) => a.type !== 'noop')).toEqual([]);
    expect(h.writes()).toBe(0);
    const byRoute = requestsByRoute(h.sandbox);
    expect([byRoute['GET /api/v1/accounts'], byRoute['GET /api/v1/items'], byRoute['GET /api/v1/top-ups']]).toEqual([
      1, 1, 1,
    ]);
  });
});
