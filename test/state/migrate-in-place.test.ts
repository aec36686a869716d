// A state db of the release before the Migrator, opened by this one: a sqlite file at schema 2 and a PostgreSQL
// database at schema 1, both written by that release's own code (test/fixtures/state/README.md). Every row reads
// back the same, the unfinished journal entry is still there to settle, and an older offersync would now refuse
// the db (its version marker says 5 in a sqlite file, 4 in PostgreSQL). Then the same dbs as the release with unit
// sales left them (its hand-written migrators' 'sold-counts': sqlite's 3, PostgreSQL's 2): the counts are kept.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestMarker, MIGRATIONS, StateSchemaTooNewError } from '../../src/state/migrations.ts';
import { openPostgresStateStore, openStateStore } from '../../src/state/open-state-store.ts';
import type { StateStore } from '../../src/state/state-store.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { until } from '../support/until.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'state');
const SHA = 'a'.repeat(64);

/** What both fixtures hold for their (first) seller, as the store reads it. */
async function expectReleaseRows(store: StateStore, timestamps: 'sqlite' | 'postgres'): Promise<void> {
  // An offer of the release before unit sales has no counts; one of the release with them keeps its own.
  expect(await store.getOffer('account', 'acc-1')).toMatchObject({ soldCount: null, soldCountAtSend: null });
  const offers = await store.listOffers();
  expect(offers.map((o) => [o.kind, o.externalId, o.remoteId, o.remoteStatus, o.managed])).toEqual(
    timestamps === 'sqlite'
      ? [
          ['account', 'acc-1', 101, 'active', true],
          ['item', 'item-1', 201, 'archived', true],
          ['topup', 'top-1', 301, null, false],
        ]
      : [
          ['account', 'acc-1', 101, 'active', true],
          ['item', 'item-1', 201, 'archived', true],
        ],
  );
  const acc = await store.getOffer('account', 'acc-1');
  expect(acc).toMatchObject({
    lastApplied: { title: 'Account one', price: 12.5 },
    credentialsHmac: 'hmac-1',
    imageHashes: [SHA],
    contentHash: 'c1',
    remoteUpdatedAt: 1_699_999_000_000,
    sourceFile: 'accounts.csv',
    lossyFields: ['description'],
  });
  expect(await store.listImages()).toEqual([
    { sha256: SHA, remoteId: 9001, url: 'https://img.example/a.png', uploadedAt: 1_699_000_000_000 },
  ]);
  expect(await store.listCapabilities()).toMatchObject([
    { name: 'bulk-update', usable: false, detail: 'refused with 404' },
  ]);
  expect((await store.listRuns(10)).map((r) => [r.id, r.command, r.outcome, r.counts])).toEqual([
    ['run-1', 'sync', 'ok', { created: 3 }],
  ]);
  expect((await store.journalUnfinished()).map((e) => [e.op, e.kind, e.keys, e.state])).toEqual([
    ['update', 'item', ['item:item-1'], 'sent'],
  ]);
  expect(await store.getMeta('watermark.item')).toBe('1699999000000');
  // The titles last sent are searchable from the start ('offer-events' reads them out of last_applied).
  expect((await store.searchOffers('ACCOUNT ONE')).map((h) => [h.kind, h.externalId, h.title])).toEqual([
    ['account', 'acc-1', 'Account one'],
  ]);
  expect(await store.getMeta('schema_version')).toBe(String(MIGRATIONS.at(-1)?.marker[timestamps]));
  // The old lease carried over: its holder is still named, and a new holder waits for it or takes it over.
  const held = await store.acquireLease({ holder: 'new-holder', pid: 1, hostname: 'h', scope: '' }, 60_000);
  expect(held.ok).toBe(timestamps === 'postgres');
  if (!held.ok) expect(held.heldBy).toMatchObject({ holder: 'old-holder', pid: 4242, hostname: 'old-host' });
  // New writes land, and journal ids keep growing past the old ones.
  const before = Math.max(...(await store.journalUnfinished()).map((e) => e.id));
  await store.upsertOffer('item', 'item-2', { remoteId: 202 });
  const entry = await store.journalBegin({ runId: 'run-2', op: 'create', kind: 'item', keys: ['item-2'] });
  expect(entry.id).toBeGreaterThan(before);
}

describe('a sqlite state db of the previous release', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'offersync-in-place-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('migrates in place to schema 5, every row kept, and reopens as it is', async () => {
    const path = join(dir, 'state.db');
    copyFileSync(join(FIXTURES, 'state-v2.db'), path);
    // The lease in the file was taken at the fixture's clock (late 2023): by this clock it is still held.
    const store = await openStateStore(path, { now: () => 1_700_000_010_000 });
    expect(store.migrations.map((m) => [m.name, m.status])).toEqual([
      ['initial', 'already-applied'],
      ['lease-scope', 'already-applied'],
      ['sold-counts', 'applied'],
      ...MIGRATIONS.slice(3).map((m) => [m.name, 'applied']),
    ]);
    await expectReleaseRows(store, 'sqlite');
    await store.close();
    const again = await openStateStore(path);
    expect(again.migrations.every((m) => m.status === 'already-applied')).toBe(true);
    expect(await again.getOffer('item', 'item-2')).toMatchObject({ remoteId: 202 });
    await again.close();
    // What the previous release reads first: a version it does not know, so it refuses the file.
    const raw = new BetterSqlite3(path, { readonly: true });
    expect(raw.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
      String(MIGRATIONS.at(-1)?.marker.sqlite),
    );
    raw.close();
  });

  it("takes a file of the release with unit sales (its schema 3, 'sold-counts') to schema 5, counts kept", async () => {
    const path = join(dir, 'state-sold.db');
    copyFileSync(join(FIXTURES, 'state-v2.db'), path);
    // What that release's migrator did to a file at schema 2, then a sale seen.
    const raw = new BetterSqlite3(path);
    raw.exec(`ALTER TABLE offers ADD COLUMN sold_count INTEGER;
      ALTER TABLE offers ADD COLUMN sold_count_at_send INTEGER;
      UPDATE meta SET value = '3' WHERE key = 'schema_version';
      UPDATE offers SET sold_count = 7, sold_count_at_send = 5 WHERE external_id = 'item-1';`);
    raw.close();
    const store = await openStateStore(path, { now: () => 1_700_000_010_000 });
    expect(store.migrations.map((m) => [m.name, m.status])).toEqual([
      ['initial', 'already-applied'],
      ['lease-scope', 'already-applied'],
      ['sold-counts', 'already-applied'],
      ...MIGRATIONS.slice(3).map((m) => [m.name, 'applied']),
    ]);
    expect(await store.getOffer('item', 'item-1')).toMatchObject({ remoteId: 201, soldCount: 7, soldCountAtSend: 5 });
    await expectReleaseRows(store, 'sqlite');
    await store.close();
  });
});

describe('a PostgreSQL state db of the previous release', () => {
  let server: TestPostgres;
  let url: string;
  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(readFileSync(join(FIXTURES, 'postgres-v1.sql'), 'utf8'));
    } finally {
      await client.end();
    }
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('migrates in place to schema 4, every seller kept, keys now in byte order', async () => {
    const store = await openPostgresStateStore('shop-1', { url });
    try {
      expect(store.migrations.map((m) => [m.name, m.status])).toEqual([
        ['initial', 'already-applied'],
        ['lease-scope', 'already-applied'],
        ['sold-counts', 'applied'],
        ...MIGRATIONS.slice(3).map((m) => [m.name, 'applied']),
      ]);
      await expectReleaseRows(store, 'postgres');
    } finally {
      await store.close();
    }
    const other = await openPostgresStateStore('shop-2', { url });
    try {
      expect(other.migrations.every((m) => m.status === 'already-applied')).toBe(true);
      expect((await other.listOffers()).map((o) => o.externalId)).toEqual(['top-1']);
      // Byte order, whatever the database's locale: upper case before lower.
      await other.upsertOffer('item', 'b', {});
      await other.upsertOffer('item', 'B', {});
      await other.upsertOffer('item', 'a', {});
      expect((await other.listOffers('item')).map((o) => o.externalId)).toEqual(['B', 'a', 'b']);
    } finally {
      await other.close();
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // What the previous release reads first: a version it does not know, so every old replica refuses it.
      const v = await client.query('SELECT max(version) AS v FROM schema_migrations');
      expect(v.rows[0].v).toBe(MIGRATIONS.at(-1)?.marker.postgres);
    } finally {
      await client.end();
    }
  });
  it("migrates under the advisory lock every release's migrator takes, waiting while another holds it", async () => {
    const fresh = await server.createDatabase();
    const other = new pg.Client({ connectionString: fresh });
    await other.connect();
    try {
      // Another replica's migrator, of this release or an older one, in the middle of its work.
      await other.query('SELECT pg_advisory_lock(7301215412)');
      const opening = openPostgresStateStore('shop-1', { url: fresh });
      await until(
        'the opening store to wait for the advisory lock',
        async () => {
          const r = await other.query(
            `SELECT count(*)::int AS n FROM pg_locks
              WHERE locktype = 'advisory' AND NOT granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          );
          return r.rows[0].n > 0;
        },
        10_000,
        50,
      );
      await other.query('SELECT pg_advisory_unlock(7301215412)');
      const store = await opening;
      expect(store.migrations.every((m) => m.status === 'applied')).toBe(true);
      await store.close();
    } finally {
      await other.end();
    }
  });

  it("refuses a database the next release migrated, by that release's marker", async () => {
    const next = await server.createDatabase();
    await (await openPostgresStateStore('shop-1', { url: next })).close();
    // The next release's migration 8 writes marker 7: this release's newest version, one past its newest marker.
    const client = new pg.Client({ connectionString: next });
    await client.connect();
    try {
      await client.query(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (7, 'next', 1800000000000);
        INSERT INTO state_migration (name, timestamp) VALUES ('0008-next', '2027-01-01T00:00:00.000Z')`);
    } finally {
      await client.end();
    }
    const err = await openPostgresStateStore('shop-1', { url: next }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateSchemaTooNewError);
    expect(err).toMatchObject({ found: latestMarker('postgres') + 1, known: latestMarker('postgres') });
  });
  it("takes a database of the release with unit sales (schema 2, 'sold-counts') to schema 4, counts kept", async () => {
    const sold = await server.createDatabase();
    const client = new pg.Client({ connectionString: sold });
    await client.connect();
    try {
      await client.query(readFileSync(join(FIXTURES, 'postgres-v1.sql'), 'utf8'));
      // What that release's migrator did to a database at schema 1, then a sale seen.
      await client.query(`BEGIN;
        ALTER TABLE offers ADD COLUMN sold_count BIGINT;
        ALTER TABLE offers ADD COLUMN sold_count_at_send BIGINT;
        INSERT INTO schema_migrations (version, name, applied_at) VALUES (2, 'sold-counts', 1700000000000);
        UPDATE offers SET sold_count = 7, sold_count_at_send = 5 WHERE seller = 'shop-1' AND external_id = 'item-1';
        COMMIT;`);
    } finally {
      await client.end();
    }
    const store = await openPostgresStateStore('shop-1', { url: sold });
    try {
      expect(store.migrations.map((m) => [m.name, m.status])).toEqual([
        ['initial', 'already-applied'],
        ['lease-scope', 'already-applied'],
        ['sold-counts', 'already-applied'],
        ...MIGRATIONS.slice(3).map((m) => [m.name, 'applied']),
      ]);
      // BIGINT read back as a number, in a single read and in the listing a run plans from.
      expect(await store.getOffer('item', 'item-1')).toMatchObject({ soldCount: 7, soldCountAtSend: 5 });
      expect(await (await store.offerView()).get('item', 'item-1')).toMatchObject({ soldCount: 7, soldCountAtSend: 5 });
      await expectReleaseRows(store, 'postgres');
    } finally {
      await store.close();
    }
  });
});
