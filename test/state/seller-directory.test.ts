// The sellers a PostgreSQL state serves, and the sales it keeps, on a real PostgreSQL (embedded, 127.0.0.1): the
// rule between a config file's sellers: list and `offersync sellers` (a command's change is never undone by the
// file), a removed seller staying removed, a purge deleting every row of the seller and nothing of another's, and
// a sale kept once however many runs tell of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KyselyStateStore } from '../../src/state/kysely-state-store.ts';
import { openPostgresStateDatabase, type PostgresStateDatabase } from '../../src/state/postgres-state-database.ts';
import { SellerDirectory, type SellerSpec } from '../../src/state/seller-directory.ts';
import { salesLedger } from '../../src/sync/sales-ledger.ts';
import type { SoldEntry } from '../../src/sync/sold-log.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';

let server: TestPostgres;
let database: PostgresStateDatabase;
let clock = 1_700_000_000_000;

beforeAll(async () => {
  server = await startPostgres();
  database = (await openPostgresStateDatabase({ url: await server.createDatabase() })).database;
}, 60_000);

afterAll(async () => {
  await database?.close();
  await server?.stop();
});

const spec = (seller: string, catalogue = `/srv/${seller}`): SellerSpec => ({
  seller,
  catalogue,
  apiKeyFile: `/run/secrets/${seller}.key`,
  apiKeyEnv: null,
  overrides: {},
});

describe('the seller directory', () => {
  it('follows the config file for its sellers until a command changes or removes one', async () => {
    const dir = new SellerDirectory(database, () => ++clock);
    expect(await dir.importFromConfig([spec('eu'), spec('us')])).toEqual({ added: ['eu', 'us'], updated: [] });
    // The file changed: a seller still as the file last said follows it.
    expect(await dir.importFromConfig([spec('eu', '/srv/eu-2'), spec('us')])).toEqual({ added: [], updated: ['eu'] });
    // A command changes us and removes eu: the file no longer touches either.
    expect(await dir.put({ ...spec('us', '/data/us'), overrides: { baseUrl: 'https://us.example' } })).toBe('updated');
    expect(await dir.remove('eu')).toBe(true);
    expect(await dir.importFromConfig([spec('eu', '/srv/eu-3'), spec('us', '/srv/us-3')])).toEqual({
      added: [],
      updated: [],
    });
    expect((await dir.list()).map((s) => [s.seller, s.catalogue, s.origin, s.overrides])).toEqual([
      ['us', '/data/us', 'command', { baseUrl: 'https://us.example' }],
    ]);
    expect(await dir.get('eu')).toMatchObject({ catalogue: '/srv/eu-2', removedAt: expect.any(Number) });
    // Added again: served as the command says, its row as it was.
    expect(await dir.put(spec('eu', '/srv/eu-back'))).toBe('added');
    expect(await dir.put(spec('eu', '/srv/eu-back'))).toBe('unchanged');
    expect((await dir.list()).map((s) => s.seller)).toEqual(['eu', 'us']);
    expect(await dir.remove('nobody')).toBe(false);
  });

  it('purges every row of one seller, and none of another', async () => {
    const dir = new SellerDirectory(database, () => ++clock);
    const gone = new KyselyStateStore(database, 'gone');
    const kept = new KyselyStateStore(database, 'kept');
    for (const store of [gone, kept]) {
      await store.upsertOffer('item', 'a', { remoteId: 1, managed: true });
      await store.runStart('r1', 'reconcile');
      await store.setMeta('k', 'v');
      await store.recordSales([{ kind: 'item', externalId: 'a', seenAt: clock, key: 'item:1:count:1', entry: {} }]);
    }
    await dir.put(spec('gone'));
    await dir.remove('gone');
    const deleted = await dir.purge('gone');
    expect(deleted).toMatchObject({ offers: 1, runs: 1, seller_meta: 1, sales: 1 });
    expect(await gone.listOffers()).toEqual([]);
    expect(await kept.listOffers()).toHaveLength(1);
    expect(await kept.countSales(0)).toBe(1);
    // The row stays, removed: a config file listing it does not bring it back.
    expect(await dir.importFromConfig([spec('gone')])).toEqual({ added: [], updated: [] });
  });
});

describe('sales in the state db', () => {
  const sale = (external: string, soldCount: number, seenAt: number): SoldEntry => ({
    kind: 'item',
    external_id: external,
    id: 7,
    status: 'sold',
    sale_key: `item:7:count:${soldCount}`,
    title: 'Gold <b>1000</b>',
    price: 1299,
    currency: null,
    sold_at: new Date(seenAt).toISOString(),
    sold_at_source: 'seen',
    seen_at: new Date(seenAt).toISOString(),
    quantity: 1,
    sold_count: soldCount,
  });

  it('keeps each line whole and each sale once, per seller, read back by time', async () => {
    const ledger = salesLedger(true, '', new KyselyStateStore(database, 'shop'));
    const other = salesLedger(true, '', new KyselyStateStore(database, 'other-shop'));
    const day = Date.UTC(2026, 10, 20);
    await ledger.record([sale('gold', 1, day + 1000), sale('gold', 2, day + 2000)]);
    // The same sale told again (a run that crashed before its counts were saved): kept once.
    await ledger.record([sale('gold', 2, day + 3000), sale('gold', 3, day + 4000)]);
    await other.record([sale('gold', 1, day + 1000)]);
    expect(await ledger.since(day + 1500)).toEqual([sale('gold', 2, day + 2000), sale('gold', 3, day + 4000)]);
    expect((await ledger.latest(2)).map((e) => e.sold_count)).toEqual([3, 2]);
    expect(await ledger.countSince(day)).toBe(3);
    expect(await other.countSince(day)).toBe(1);
    expect(ledger.where).toBe('the state db');
  });
});
