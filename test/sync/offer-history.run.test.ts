// Each offer's story as a reconcile records it against the sandbox: the marketplace's refusal with its status and
// message (and never the credentials it quoted), a write whose answer was lost, an offer gone from the marketplace,
// and a run of more offers than one batch of events holds.
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/open-state-store.ts';
import type { OfferEvent, StateKind } from '../../src/state/records.ts';
import { EVENT_BATCH } from '../../src/sync/execute/run-context.ts';
import { type Harness, harnessPerTest } from '../support/harness.ts';

const openHarness = harnessPerTest();

async function history(harness: Harness, kind: StateKind, externalId: string): Promise<OfferEvent[]> {
  const store = await openStateStore(harness.statePath);
  try {
    return await store.offerHistory(kind, externalId, 1000);
  } finally {
    await store.close();
  }
}

describe('the story a reconcile records', () => {
  it("keeps a refusal's status and message, without the credentials the marketplace quoted", async () => {
    const h = await openHarness({ sandbox: { faults: { echoCredentials: true } } });
    const password = 'quoted-back-pw-31337';
    h.write(
      'accounts/a.json',
      JSON.stringify([{ external_id: 'acc-1', title: 'Acc', price: 900, credentials: { login: 'me', password } }]),
    );
    expect((await h.reconcile()).report.outcome).toBe('partial');
    const [refused, ...rest] = await history(h, 'account', 'acc-1');
    expect(rest).toEqual([]);
    expect(refused).toMatchObject({
      type: 'created',
      route: 'POST /api/v1/accounts',
      answer: { outcome: 'refused', status: 422 },
      detail: 'new in the catalogue',
    });
    expect(refused?.answer?.message).toContain('The credentials are invalid');
    expect(JSON.stringify(refused)).not.toContain(password);
    expect(refused?.changes).toContainEqual({ field: 'credentials' });
  });

  it('tells a create whose answer was lost, then the adoption of the offer it made', async () => {
    const h = await openHarness({ sandbox: { faults: { lostResponseRate: 1, seed: 7 } } });
    h.write('items/a.json', JSON.stringify([{ external_id: 'it-1', title: 'One', price: 100, stock: 1 }]));
    await h.reconcile();
    const story = await history(h, 'item', 'it-1');
    expect(story.map((e) => [e.type, e.answer?.outcome ?? null])).toEqual([
      ['created', 'unknown'],
      ['adopted', null],
    ]);
    expect(story[1]?.detail).toBe('already listed under its external_id when created: adopted');
  });

  it('tells an account sold, once, and a refund after it', async () => {
    const h = await openHarness();
    h.write('accounts/a.json', JSON.stringify([{ external_id: 'acc-1', title: 'Acc', price: 900 }]));
    await h.reconcile();
    h.sandbox.setStatus('accounts', 'acc-1', 'sold');
    await h.reconcile();
    await h.reconcile();
    h.sandbox.setStatus('accounts', 'acc-1', 'refunded');
    await h.reconcile();
    expect((await history(h, 'account', 'acc-1')).map((e) => [e.type, e.detail])).toEqual([
      ['created', 'new in the catalogue'],
      ['sold', 'the marketplace marks it sold'],
      ['marked', 'the marketplace marks it refunded'],
    ]);
  });

  it('records every offer of a run larger than a batch, and tells an offer gone from the marketplace', async () => {
    const h = await openHarness();
    const n = EVENT_BATCH * 2 + 10;
    const items = Array.from({ length: n }, (_, i) => ({
      external_id: `it-${i}`,
      title: `T${i}`,
      price: 100,
      stock: 1,
    }));
    h.write('items/a.json', JSON.stringify(items));
    expect((await h.reconcile()).report.outcome).toBe('converged');
    const store = await openStateStore(h.statePath);
    try {
      for (const it of items)
        expect((await store.offerHistory('item', it.external_id, 10)).map((e) => e.type)).toEqual(['created']);
    } finally {
      await store.close();
    }
    // Deleted on the website: still in the catalogue, so created again, and the story says why.
    h.sandbox.reset();
    h.write('items/a.json', JSON.stringify(items.slice(0, 1)));
    await h.reconcile({ allowMassArchive: true });
    expect((await history(h, 'item', 'it-0')).map((e) => [e.type, e.detail])).toEqual([
      ['created', 'new in the catalogue'],
      ['created', 'gone from the marketplace, still in the catalogue'],
    ]);
    expect((await history(h, 'item', 'it-1')).map((e) => [e.type, e.detail])).toEqual([
      ['created', 'new in the catalogue'],
      ['gone', 'no longer on the marketplace: forgotten'],
    ]);
  });
});

describe("offersync's own archive in the story", () => {
  it('an offer it archived and the seller brings back is a catalogue change, never a website edit', async () => {
    const h = await openHarness({ config: { guard: { maxArchive: 100, maxArchivePercent: 100, maxArchiveMin: 0 } } });
    const items = (ids: readonly string[]) =>
      JSON.stringify(ids.map((id, i) => ({ external_id: id, title: `Item ${id}`, price: 100 + i })));
    h.write('items/i.json', items(['it-1', 'it-2']));
    expect((await h.reconcile()).report.outcome).toBe('converged');
    h.write('items/i.json', items(['it-1']));
    expect((await h.reconcile()).report.counts.item?.archived).toBe(1);
    h.write('items/i.json', items(['it-1', 'it-2']));
    const back = await h.reconcile();
    expect(back.report.outcome).toBe('converged');
    const updated = back.report.outcomes.find((o) => o.externalId === 'it-2');
    expect(updated?.outcome).toBe('updated');
    expect(updated?.reason).toBe('changed');
    expect(updated?.changes?.some((c) => c.patchedBack)).toBe(false);
    const story = await history(h, 'item', 'it-2');
    expect(story.map((e) => e.type)).not.toContain('edited-on-website');
  });
});
