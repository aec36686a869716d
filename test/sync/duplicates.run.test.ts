// Duplicates found and removed: after a full read, an external_id the marketplace lists more than once (a server
// with no unique key on accounts' external_id, representation.accountsDuplicateExternalId) is reported; the copies
// offersync's journal shows it made are archived, the mapped one kept; a copy it cannot attribute is left.
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { accountBody } from '../support/offers.ts';
import { harnessPerTest, type Harness, TEST_KEY } from '../support/harness.ts';

const harness = harnessPerTest();

async function post(h: Harness, body: Record<string, unknown>): Promise<number> {
  const res = await fetch(`${h.sandbox.url}/api/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.ok).toBe(true);
  const answer = (await res.json()) as { id?: number; data?: { id: number } };
  return answer.data?.id ?? answer.id ?? -1;
}

async function listed(h: Harness): Promise<{ id: number; external_id: string; status: string }[]> {
  const res = await fetch(`${h.sandbox.url}/api/v1/accounts?per_page=100&sort=id`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  return ((await res.json()) as { data: { id: number; external_id: string; status: string }[] }).data;
}

/** Creates a stale process journalled and sent (done) for `externalId`, as a resumed holder's would be. */
async function journalCreates(h: Harness, externalId: string, n: number): Promise<void> {
  const store = await openStateStore(h.statePath);
  for (let i = 0; i < n; i++) {
    const e = await store.journalBegin({ runId: 'stale-run', op: 'create', kind: 'account', keys: [externalId] });
    await store.journalSet(e.id, 'done');
  }
  await store.close();
}

const catalogue = JSON.stringify(
  ['a-1', 'a-2', 'a-3'].map((id) => ({ external_id: id, title: `Account ${id}`, price: 1999, game: 'lol' })),
);

describe('duplicates on the marketplace', () => {
  it('switch on: the copies offersync made are archived, the mapped one kept, the rest reported and left', async () => {
    const h = await harness({ sandbox: { representation: { accountsDuplicateExternalId: true } } });
    h.write('accounts/main.json', catalogue);
    const first = await h.reconcile();
    expect(first.report.outcome).toBe('converged');
    const mapped = new Map((await listed(h)).map((a) => [a.external_id, a.id]));
    // A stale holder made two more copies of a-1; someone made one of a-2 by hand.
    const stale = [await post(h, accountBody('a-1')), await post(h, accountBody('a-1'))];
    await journalCreates(h, 'a-1', 2);
    const byHand = await post(h, accountBody('a-2'));

    const run = await h.reconcile();
    const live = (await listed(h)).filter((a) => a.status === 'listed');
    expect(live.filter((a) => a.external_id === 'a-1').map((a) => a.id)).toEqual([mapped.get('a-1')]);
    expect(live.filter((a) => a.external_id === 'a-2').map((a) => a.id)).toEqual([mapped.get('a-2'), byHand]);
    expect(run.report.messages).toEqual(
      expect.arrayContaining([
        `the marketplace lists account 'a-1' more than once: offersync keeps id ${mapped.get('a-1')}; ` +
          `archived the copies it made (ids ${[...stale].reverse().join(', ')})`,
        `the marketplace lists account 'a-2' more than once: offersync keeps id ${mapped.get('a-2')}; ` +
          `left ids ${byHand} (not made by offersync, or sold): archive them on the website if unwanted`,
      ]),
    );
    // The planner's bare warning for the same offers is replaced, not repeated.
    expect(run.report.messages.filter((m) => m.includes("'a-1' more than once"))).toHaveLength(1);
    // The next run finds only what it left.
    const again = await h.reconcile();
    expect(again.report.messages.filter((m) => m.includes('more than once'))).toEqual([
      expect.stringContaining("'a-2'"),
    ]);
  });

  it('switch off: a second create is refused, nothing is duplicated and nothing is said of duplicates', async () => {
    const h = await harness();
    h.write('accounts/main.json', catalogue);
    await h.reconcile();
    const res = await fetch(`${h.sandbox.url}/api/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(accountBody('a-1')),
    });
    expect(res.status).toBe(409);
    await journalCreates(h, 'a-1', 2);
    const run = await h.reconcile();
    expect(run.report.outcome).toBe('converged');
    expect(run.report.messages.filter((m) => m.includes('more than once'))).toEqual([]);
    expect((await listed(h)).filter((a) => a.status === 'listed')).toHaveLength(3);
  });
});
