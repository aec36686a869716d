// A write never lands on an offer that was not meant: bulk elements name offers by marketplace id only, so a
// marketplace that reads an element's external_id first (and an all-digit one as an internal id) cannot reach a
// hand-made offer whose id is a catalogue external_id; an answer naming an offer the call was not sent for stops
// the run before any further write. And the answer's rows are the confirmation: no list is read after them.
import { describe, expect, it } from 'vitest';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { REAL_SERVER_SWITCHES_BULK } from '../../src/sandbox/real-server-bulk.ts';
import type { SandboxOptions } from '../../src/sandbox/sandbox-server.ts';
import { WrongOfferError } from '../../src/sync/execute/wrong-offer-error.ts';
import { overrideMethod } from '../support/client-override.ts';
import { type Harness, harnessPerTest, requestsByRoute } from '../support/harness.ts';

const openHarness = harnessPerTest();

const GUARD = { guard: { maxArchive: 100, maxArchivePercent: 100, maxArchiveMin: 0 } };
const SERVED = { undocumented: true };
const SERVERS: readonly [string, SandboxOptions][] = [
  ['the document', { bulk: SERVED }],
  ['the real server', { ...REAL_SERVER_SWITCHES_BULK, bulk: { ...REAL_SERVER_SWITCHES_BULK.bulk, ...SERVED } }],
];

/** Items made by hand on the website, ids 1..n (the store is empty), external_ids web-1..web-n. */
async function handMade(h: Harness, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    const res = await fetch(`${h.sandbox.url}/api/v1/items`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.config.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ external_id: `web-${i}`, title: `By hand ${i}`, price: 100, status: 'listed' }),
    });
    expect(((await res.json()) as { id: number }).id).toBe(i);
  }
}

/** Catalogue items whose external_ids are SKU numbers: "1", "2", ... */
const skus = (h: Harness, price: number, numbers: readonly number[]) =>
  h.write('items/i.json', JSON.stringify(numbers.map((n) => ({ external_id: String(n), title: `SKU ${n}`, price }))));

const items = (h: Harness) =>
  Object.fromEntries(h.sandbox.dump().items.map((i) => [i.external_id, { price: i.price, status: i.status }]));

describe.each(SERVERS)('numeric external_ids against %s', (_name, sandbox) => {
  it('a price run and an archive run leave a hand-made offer whose id is an external_id untouched', async () => {
    const h = await openHarness({ sandbox, config: GUARD });
    await handMade(h, 3);
    skus(h, 300, [1, 2, 3]);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    skus(h, 400, [1, 2, 3]);
    h.sandbox.resetCounters();
    expect((await h.reconcile()).report.outcome).toBe('converged');
    expect(requestsByRoute(h.sandbox)['POST /api/v1/items/bulk-update']).toBe(1);
    skus(h, 400, [3]);
    const archive = await h.reconcile({ allowMassArchive: true });
    expect(archive.report.outcome).toBe('converged');
    expect(archive.report.counts.item?.archived).toBe(2);
    const hand = { price: 100, status: 'listed' };
    expect(items(h)).toEqual({
      'web-1': hand,
      'web-2': hand,
      'web-3': hand,
      '1': { price: 400, status: 'archived' },
      '2': { price: 400, status: 'archived' },
      '3': { price: 400, status: 'listed' },
    });
  });
});

describe('a bulk answer naming an offer the call was not sent for', () => {
  it('stops the run before any further write, saying which offer was hit and which was meant', async () => {
    const [, real] = SERVERS[1]!;
    const h = await openHarness({ sandbox: real, config: GUARD });
    await handMade(h, 3);
    skus(h, 300, [1, 2, 3]);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    const catalogueId = (e: string) => h.sandbox.dump().items.find((i) => i.external_id === e)!.id as number;
    // A client that still names elements by external_id too: the server finds "1" as the hand-made #1.
    const naming = (client: MarketplaceClient) =>
      overrideMethod(client, 'items', 'bulk', (original, op, key, elements, opts) =>
        original(
          op,
          key,
          (elements as Record<string, unknown>[]).map((e) => ({
            ...e,
            external_id: String(h.sandbox.dump().items.find((i) => i.id === e.id)!.external_id),
          })),
          opts,
        ),
      );
    skus(h, 400, [1, 2]); // "1" and "2" repriced, "3" removed
    h.sandbox.resetCounters();
    const run = h.reconcile({ allowMassArchive: true }, undefined, naming);
    await expect(run).rejects.toThrow(WrongOfferError);
    await expect(run).rejects.toThrow(
      `POST /items/bulk-update answered for item #1 external_id "web-1", which the call was not sent for (meant: ` +
        `item #${catalogueId('1')} external_id "1", item #${catalogueId('2')} external_id "2")`,
    );
    const routes = requestsByRoute(h.sandbox);
    expect(routes['POST /api/v1/items/bulk-update']).toBe(1);
    // The archive of "3" went first (money first: an archive outranks a price); nothing went after the halt.
    expect(routes['PATCH /api/v1/items/{identifier}']).toBe(1);
    expect(routes['DELETE /api/v1/items/{identifier}']).toBeUndefined();
    // The call did reach the hand-made offers (as the error says); the ones meant are not taken as done.
    expect(items(h)).toMatchObject({
      'web-1': { price: 400 },
      '1': { price: 300 },
      '3': { price: 300, status: 'archived' },
    });
    // The next run sends the work by each offer's own route: the hand-made offers are not reached again.
    h.sandbox.resetCounters();
    expect((await h.reconcile({ allowMassArchive: true }, undefined, naming)).report.outcome).toBe('converged');
    expect(requestsByRoute(h.sandbox)['POST /api/v1/items/bulk-update']).toBeUndefined();
    expect(items(h)).toMatchObject({
      'web-1': { price: 400, status: 'listed' },
      'web-2': { price: 400, status: 'listed' },
      '1': { price: 400, status: 'listed' },
      '2': { price: 400, status: 'listed' },
      '3': { status: 'archived' },
    });
  });
});

describe.each(SERVERS)('bulk answers that itemise rows, against %s', (_name, sandbox) => {
  it('repricing every item and top-up reads no list after the bulk writes', async () => {
    const h = await openHarness({ sandbox });
    const write = (price: number) => {
      h.write(
        'items/i.json',
        JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ external_id: `it-${i}`, title: `I ${i}`, price }))),
      );
      h.write(
        'top-ups/t.json',
        JSON.stringify(
          Array.from({ length: 40 }, (_, i) => ({ external_id: `tu-${i}`, offer_title: `T ${i}`, price })),
        ),
      );
    };
    write(100);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    h.sandbox.resetCounters();
    expect((await h.reconcile()).report.outcome).toBe('converged');
    const listsOfSnapshot = requestsByRoute(h.sandbox);
    write(200);
    h.sandbox.resetCounters();
    const run = await h.reconcile();
    expect(run.report.outcome).toBe('converged');
    const routes = requestsByRoute(h.sandbox);
    expect(routes['GET /api/v1/items']).toBe(listsOfSnapshot['GET /api/v1/items']);
    expect(routes['GET /api/v1/top-ups']).toBe(listsOfSnapshot['GET /api/v1/top-ups']);
    expect(routes['POST /api/v1/items/bulk-update']).toBe(1);
    expect(routes['PATCH /api/v1/items/{identifier}']).toBeUndefined();
    expect(routes['PATCH /api/v1/top-ups/{identifier}']).toBeUndefined();
    expect(new Set(h.sandbox.dump().items.map((i) => i.price))).toEqual(new Set([200]));
    expect(new Set(h.sandbox.dump().topUps.map((i) => i.price))).toEqual(new Set([200]));
  });
});
