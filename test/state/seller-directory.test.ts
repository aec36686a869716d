// The sellers a state serves, and the sales it keeps: the directory on a sqlite file and on a real PostgreSQL
// (embedded, 127.0.0.1): the rule between a config file's sellers: list and `offersync sellers` (a command's change
// is never undone by the file, not even by a list imported while the command writes), a removed seller staying
// removed, a purge deleting every row of the seller and nothing of another's, and a sale kept once however many
// runs tell of it.
import { sql, type Transaction } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KyselyStateStore } from '../../src/state/kysely-state-store.ts';
import { openPostgresStateDatabase, type PostgresStateDatabase } from '../../src/state/postgres-state-database.ts';
import type { Database } from '../../src/state/db-schema.ts';
import { SellerDirectory, type SellerSpec } from '../../src/state/seller-directory.ts';
import { openSqliteStateDatabase } from '../../src/state/sqlite-state-database.ts';
import type { StateDatabase } from '../../src/state/state-database.ts';
import { salesLedger } from '../../src/sales/sales-ledger.ts';
import type { SoldEntry } from '../../src/sales/sold-log.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { until } from '../support/until.ts';

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

/** sqlite files opened by a test, closed after it. */
const opened: StateDatabase[] = [];
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close();
});

/** A database of the dialect: a new sqlite file in memory, or the PostgreSQL one (sellers named apart per test). */
async function databaseOf(dialect: 'sqlite' | 'postgres'): Promise<StateDatabase> {
  if (dialect === 'postgres') return database;
  const { database: file } = await openSqliteStateDatabase(':memory:');
  opened.push(file);
  return file;
}

describe.each(['sqlite', 'postgres'] as const)('the seller directory on %s', (dialect) => {
  it('follows the config file for its sellers until a command changes or removes one', async () => {
    const dir = new SellerDirectory(await databaseOf(dialect), () => ++clock);
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

  it('tells a seller added, each field of its spec changed, and a spec put again unchanged', async () => {
    const dir = new SellerDirectory(await databaseOf(dialect), () => ++clock);
    let current = spec('fields');
    expect(await dir.put(current)).toBe('added');
    const changes: Partial<SellerSpec>[] = [
      { catalogue: '/srv/fields-2' },
      { apiKeyFile: '/run/secrets/fields-2.key' },
      { apiKeyEnv: 'FIELDS_API_KEY' },
      { overrides: { baseUrl: 'https://fields.example' } },
    ];
    for (const change of changes) {
      current = { ...current, ...change };
      expect(await dir.put(current)).toBe('updated');
      expect(await dir.get('fields')).toMatchObject(change);
      expect(await dir.put(current)).toBe('unchanged');
    }
  });

  it("makes a config seller the command's when it is added with its spec: the file no longer moves it", async () => {
    const dir = new SellerDirectory(await databaseOf(dialect), () => ++clock);
    await dir.importFromConfig([spec('adopted')]);
    expect((await dir.get('adopted'))?.origin).toBe('config');
    expect(await dir.put(spec('adopted'))).toBe('unchanged');
    expect((await dir.get('adopted'))?.origin).toBe('command');
    expect(await dir.importFromConfig([spec('adopted', '/srv/elsewhere')])).toEqual({ added: [], updated: [] });
    expect((await dir.get('adopted'))?.catalogue).toBe('/srv/adopted');
  });

  it('serves a removed seller again when added with the spec it had', async () => {
    const dir = new SellerDirectory(await databaseOf(dialect), () => ++clock);
    expect(await dir.put(spec('back'))).toBe('added');
    expect(await dir.remove('back')).toBe(true);
    expect((await dir.list()).map((s) => s.seller)).not.toContain('back');
    expect(await dir.put(spec('back'))).toBe('added');
    expect((await dir.list()).map((s) => s.seller)).toContain('back');
    expect((await dir.get('back'))?.removedAt).toBeNull();
  });

  it('imports a config file with no sellers as nothing added, nothing updated', async () => {
    const dir = new SellerDirectory(await databaseOf(dialect), () => ++clock);
    expect(await dir.importFromConfig([])).toEqual({ added: [], updated: [] });
  });

  it('purges every row of one seller, and none of another', async () => {
    const db = await databaseOf(dialect);
    const dir = new SellerDirectory(db, () => ++clock);
    const gone = new KyselyStateStore(db, 'gone');
    const kept = new KyselyStateStore(db, 'kept');
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

/**
 * Another writer's transaction on the PostgreSQL state (a `sellers add`, or a replica importing the same list, on
 * another machine): it has written when this returns, and commits when told.
 */
async function otherWriter(write: (trx: Transaction<Database>) => Promise<unknown>): Promise<() => Promise<void>> {
  let letGo = () => {};
  const gate = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  let wrote = () => {};
  const written = new Promise<void>((resolve) => {
    wrote = resolve;
  });
  const done = database.db.transaction().execute(async (trx) => {
    await write(trx);
    wrote();
    await gate;
  });
  await Promise.race([written, done]);
  return async () => {
    letGo();
    await done;
  };
}

/** Some statement of the state's database waits for a row lock another transaction holds. */
async function waitingForALock(): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
  `.execute(database.db);
  return (rows[0]?.n ?? 0) > 0;
}

describe('the seller directory with two writers at once (PostgreSQL)', () => {
  it("reads a seller's row once the other writer is done: a command's change is not undone by the file", async () => {
    const dir = new SellerDirectory(database, () => ++clock);
    await dir.importFromConfig([spec('raced')]);
    const commit = await otherWriter((trx) =>
      trx
        .updateTable('sellers')
        .set({ catalogue: '/data/raced', origin: 'command', updated_at: ++clock })
        .where('seller', '=', 'raced')
        .execute(),
    );
    const importing = dir.importFromConfig([spec('raced', '/srv/raced-2')]);
    await until('the import to wait for the row the command holds', waitingForALock, 20_000, 20);
    await commit();
    expect(await importing).toEqual({ added: [], updated: [] });
    expect(await dir.get('raced')).toMatchObject({ catalogue: '/data/raced', origin: 'command' });
  });

  it('does not tell a seller added that another replica inserted meanwhile', async () => {
    const dir = new SellerDirectory(database, () => ++clock);
    const commit = await otherWriter((trx) =>
      trx
        .insertInto('sellers')
        .values({
          seller: 'twice',
          catalogue: '/srv/twice',
          api_key_file: '/run/secrets/twice.key',
          api_key_env: null,
          overrides: '{}',
          origin: 'config',
          added_at: ++clock,
          updated_at: clock,
          removed_at: null,
        })
        .execute(),
    );
    const importing = dir.importFromConfig([spec('twice')]);
    await until('the import to wait for the row the other replica inserts', waitingForALock, 20_000, 20);
    await commit();
    expect(await importing).toEqual({ added: [], updated: [] });
    expect((await dir.list()).filter((s) => s.seller === 'twice')).toHaveLength(1);
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
