import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  latestMarker,
  MIGRATIONS,
  migrateState,
  type StateMigration,
  StateSchemaTooNewError,
} from '../../src/state/migrations.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'offersync-state-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const tables = (db: BetterSqlite3.Database) =>
  (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as { name: string }[]
  ).map((r) => r.name);

/** A migration of the sqlite dialect only, for the migrator's own tests. */
const sqliteOnly = (version: number, name: string, ...statements: string[]): StateMigration => ({
  version,
  name,
  marker: { sqlite: version, postgres: version },
  sql: { sqlite: [`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)`, ...statements], postgres: [] },
});

/** kysely over a private sqlite db, and the db itself to look at. */
function memoryDb() {
  const raw = new BetterSqlite3(':memory:');
  // biome-ignore lint/suspicious/noExplicitAny: migrations run before any typed schema
  return { raw, db: new Kysely<any>({ dialect: new SqliteDialect({ database: raw }) }) };
}

describe('migrations', () => {
  it('creates every table in an empty file, and reopening changes nothing', async () => {
    const path = join(dir, 'state.db');
    const first = await openStateStore(path);
    expect(first.migrations).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name, status: 'applied' })));
    expect(await first.getMeta('schema_version')).toBe(String(latestMarker('sqlite')));
    await first.upsertOffer('item', 'a', { remoteId: 1 });
    await first.close();

    const again = await openStateStore(path);
    expect(again.migrations.every((m) => m.status === 'already-applied')).toBe(true);
    expect((await again.getOffer('item', 'a'))?.remoteId).toBe(1);
    await again.close();

    const db = new BetterSqlite3(path, { readonly: true });
    expect(tables(db)).toEqual([
      'capabilities',
      'images',
      'journal',
      'meta',
      'offer_events',
      'offers',
      'runs',
      'sales',
      'seller_leases',
      'seller_meta',
      'sellers',
      'state_migration',
      'state_migration_lock',
    ]);
    const indexes = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as { name: string }[]
    ).map((r) => r.name);
    expect(indexes).toEqual(
      expect.arrayContaining(['offers_remote_id', 'journal_state', 'runs_started_at', 'offer_events_offer']),
    );
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('refuses a db written by a newer offersync, saying which versions', async () => {
    const path = join(dir, 'state.db');
    await (await openStateStore(path)).close();
    const db = new BetterSqlite3(path);
    db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    db.close();
    await expect(openStateStore(path)).rejects.toThrow(StateSchemaTooNewError);
    await expect(openStateStore(path)).rejects.toThrow(
      `schema version 99, newer than this offersync knows (${latestMarker('sqlite')})`,
    );
  });

  it('tells what to do about a newer db: upgrade, or another state.path', async () => {
    const { db } = memoryDb();
    await migrateState(db, 'sqlite', '/srv/state.db', [
      sqliteOnly(1, 'one'),
      sqliteOnly(2, 'two'),
      sqliteOnly(3, 'three'),
    ]);
    let err: unknown;
    try {
      await migrateState(db, 'sqlite', '/srv/state.db', [sqliteOnly(1, 'one')]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StateSchemaTooNewError);
    expect(err).toMatchObject({ name: 'StateSchemaTooNewError', path: '/srv/state.db', found: 3, known: 1 });
    expect((err as Error).message).toBe(
      'state db /srv/state.db has schema version 3, newer than this offersync knows (1); ' +
        'upgrade offersync, or point state.path at another file',
    );
    await db.destroy();
  });

  it('stops when a newer offersync migrated the db meanwhile, not calling the rest already applied', async () => {
    const { raw, db } = memoryDb();
    // The other process, in a trigger: as soon as version 1 is written, the db is at version 9.
    raw.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
      CREATE TRIGGER newer AFTER INSERT ON meta WHEN NEW.key = 'schema_version'
      BEGIN UPDATE meta SET value = '9' WHERE key = 'schema_version'; END`);
    const two = sqliteOnly(2, 'two', 'CREATE TABLE b (y INTEGER)');
    const err = await migrateState(db, 'sqlite', ':memory:', [sqliteOnly(1, 'one'), two]).catch((e: unknown) => e);
    // The refusal itself, not a failed migration wrapping its words: the caller tells the two apart by class.
    expect(err).toBeInstanceOf(StateSchemaTooNewError);
    expect(err).toMatchObject({ found: 9, known: 2 });
    expect((err as Error).message).toContain('schema version 9, newer than this offersync knows (2)');
    expect(tables(raw)).not.toContain('b');
    await db.destroy();
  });

  it('names the migrations of this release', () => {
    expect(MIGRATIONS.map((m) => [m.version, m.name])).toEqual([
      [1, 'initial'],
      [2, 'lease-scope'],
      [3, 'sold-counts'],
      [4, 'one-schema'],
      [5, 'offer-events'],
      [6, 'sellers-and-sales'],
      [7, 'login-fingerprints'],
    ]);
  });

  it('applies only the migrations a db lacks, in order, each with its version bump', async () => {
    const { raw, db } = memoryDb();
    const v1 = sqliteOnly(1, 'one', 'CREATE TABLE a (x INTEGER)');
    const v2 = sqliteOnly(2, 'two', 'CREATE TABLE b (y INTEGER)');
    expect((await migrateState(db, 'sqlite', ':memory:', [v1])).map((r) => r.status)).toEqual(['applied']);
    expect(await migrateState(db, 'sqlite', ':memory:', [v1, v2])).toEqual([
      { version: 1, name: 'one', status: 'already-applied' },
      { version: 2, name: 'two', status: 'applied' },
    ]);
    expect(tables(raw).filter((t) => !t.startsWith('state_migration'))).toEqual(['a', 'b', 'meta']);
    expect(raw.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe('2');
    await db.destroy();
  });

  it('rolls a failing migration back whole, version included', async () => {
    const { raw, db } = memoryDb();
    const bad = sqliteOnly(1, 'bad', 'CREATE TABLE a (x INTEGER)', 'CREATE TABLE oops (');
    await expect(migrateState(db, 'sqlite', ':memory:', [bad])).rejects.toThrow(/migration 0001-bad failed/);
    // The Migrator's own tables too: nothing of the attempt is left.
    expect(tables(raw)).toEqual([]);
    await db.destroy();
  });

  it('tells a PostgreSQL operator to upgrade every replica, or point state.url at another database', () => {
    const err = new StateSchemaTooNewError('postgres://db.test/offersync', 6, 5, 'postgres');
    expect(err.message).toBe(
      'state db postgres://db.test/offersync has schema version 6, newer than this offersync knows (5); ' +
        'upgrade offersync on every replica, or point state.url at another database',
    );
  });

  it("compares a db's marker with the newest marker of its dialect, not the newest version", async () => {
    const { raw, db } = memoryDb();
    // As in PostgreSQL, where 'lease-scope' left no marker of its own: versions run one ahead of markers.
    const one = sqliteOnly(1, 'one');
    const two = { ...sqliteOnly(2, 'two'), marker: { sqlite: 1, postgres: 1 } };
    const three = { ...sqliteOnly(3, 'three', 'CREATE TABLE c (z INTEGER)'), marker: { sqlite: 2, postgres: 2 } };
    await migrateState(db, 'sqlite', '/srv/state.db', [one, two, three]);
    // This release's newest version (2) equals the newer release's marker: the db is still refused.
    const err = await migrateState(db, 'sqlite', '/srv/state.db', [one, two]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateSchemaTooNewError);
    expect(err).toMatchObject({ found: 2, known: 1 });
    // And a db at this release's own newest marker is up to date.
    expect((await migrateState(db, 'sqlite', '/srv/state.db', [one, two, three])).map((r) => r.status)).toEqual([
      'already-applied',
      'already-applied',
      'already-applied',
    ]);
    expect(tables(raw)).toContain('c');
    await db.destroy();
  });

  it('names the migration that failed, not those before it, and rolls those back too', async () => {
    const { raw, db } = memoryDb();
    const one = sqliteOnly(1, 'one', 'CREATE TABLE a (x INTEGER)');
    const bad = sqliteOnly(2, 'bad', 'CREATE TABLE oops (');
    const err = await migrateState(db, 'sqlite', '/srv/state.db', [one, bad]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^state db \/srv\/state\.db: migration 0002-bad failed, nothing changed: /);
    // SQLite's own error is kept for the log, and its words are in the message.
    const cause = (err as Error).cause;
    expect(cause).toBeInstanceOf(Error);
    expect((err as Error).message).toContain((cause as Error).message);
    expect(tables(raw)).toEqual([]);
    await db.destroy();
  });

  it('refuses a db whose Migrator table names a migration this release lacks, changing nothing', async () => {
    const { raw, db } = memoryDb();
    const one = sqliteOnly(1, 'one');
    await migrateState(db, 'sqlite', ':memory:', [one]);
    raw
      .prepare(`INSERT INTO state_migration (name, timestamp) VALUES ('0002-from-a-newer-release', ?)`)
      .run(new Date().toISOString());
    const two = sqliteOnly(2, 'two', 'CREATE TABLE b (y INTEGER)');
    const err = await migrateState(db, 'sqlite', ':memory:', [one, two]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateSchemaTooNewError);
    expect(tables(raw)).not.toContain('b');
    expect(raw.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe('1');
    await db.destroy();
  });

  it('refuses a db at the newest marker whose Migrator table names an unknown migration, writing nothing', async () => {
    const path = join(dir, 'state.db');
    await (await openStateStore(path)).close();
    const raw = new BetterSqlite3(path);
    raw
      .prepare(`INSERT INTO state_migration (name, timestamp) VALUES ('0099-from-a-newer-release', ?)`)
      .run(new Date().toISOString());
    const before = raw.prepare('SELECT count(*) FROM runs').pluck().get();
    raw.close();
    const err = await openStateStore(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateSchemaTooNewError);
    expect(err).toMatchObject({ unknownMigrations: ['0099-from-a-newer-release'] });
    expect((err as Error).message).toBe(
      `state db ${path} records a migration this offersync does not have (0099-from-a-newer-release): a newer ` +
        'offersync has written to it, and this one could corrupt what that one relies on. Nothing was written to ' +
        'it. To go on, upgrade offersync, or point state.path at another file.',
    );
    const after = new BetterSqlite3(path);
    expect(after.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(before);
    after.close();
  });

  it('stops on a Migrator table out of order, naming no migration and changing nothing', async () => {
    const { raw, db } = memoryDb();
    const one = sqliteOnly(1, 'one');
    const two = sqliteOnly(2, 'two', 'CREATE TABLE b (y INTEGER)');
    await migrateState(db, 'sqlite', ':memory:', [one, two]);
    // The Migrator reads its table by time: 'two' recorded before 'one' is a record it cannot trust.
    raw.prepare("UPDATE state_migration SET timestamp = '2000-01-01T00:00:00.000Z' WHERE name = '0002-two'").run();
    const three = sqliteOnly(3, 'three', 'CREATE TABLE c (z INTEGER)');
    await expect(migrateState(db, 'sqlite', ':memory:', [one, two, three])).rejects.toThrow(
      /^state db :memory:: migration \(none\) failed, nothing changed: corrupted migrations: /,
    );
    expect(tables(raw)).not.toContain('c');
    await db.destroy();
  });

  // A record lost (one row, or the whole Migrator table): the marker says the migration ran, so it is written
  // down again and not run twice.
  it.each([
    { lost: "one migration's record", lose: "DELETE FROM state_migration WHERE name = '0002-two'" },
    { lost: 'the whole Migrator table', lose: 'DROP TABLE state_migration' },
  ])("records again the migrations a file's marker covers when $lost is lost, so none runs twice", async ({ lose }) => {
    const { raw, db } = memoryDb();
    const one = sqliteOnly(1, 'one', 'CREATE TABLE a (x INTEGER)');
    const two = sqliteOnly(2, 'two', 'CREATE TABLE b (y INTEGER)');
    await migrateState(db, 'sqlite', ':memory:', [one, two]);
    raw.exec(lose);
    expect((await migrateState(db, 'sqlite', ':memory:', [one, two])).map((r) => r.status)).toEqual([
      'already-applied',
      'already-applied',
    ]);
    expect(raw.prepare('SELECT name FROM state_migration ORDER BY name').pluck().all()).toEqual([
      '0001-one',
      '0002-two',
    ]);
    await db.destroy();
  });

  it('opens an up-to-date file read-only: another process holding its write lock does not stop it', async () => {
    const path = join(dir, 'state.db');
    const first = await openStateStore(path);
    await first.upsertOffer('item', 'a', { remoteId: 1 });
    await first.close();
    const other = new BetterSqlite3(path);
    other.exec('BEGIN IMMEDIATE');
    try {
      // No wait for the lock: an open that wanted it would fail at once.
      const store = await openStateStore(path, { busyTimeoutMs: 0 });
      expect(store.migrations.every((m) => m.status === 'already-applied')).toBe(true);
      expect((await store.getOffer('item', 'a'))?.remoteId).toBe(1);
      await expect(store.upsertOffer('item', 'b', {})).rejects.toThrow(/database is locked/);
      await store.close();
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });

  it('has strictly increasing versions from 1', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });
});

describe('state db file', () => {
  it('is created with mode 0600, and so are its -wal and -shm', async () => {
    const path = join(dir, 'state.db');
    const store = await openStateStore(path);
    await store.upsertOffer('account', 'a', { managed: true });
    for (const f of [path, `${path}-wal`, `${path}-shm`]) expect(statSync(f).mode & 0o777).toBe(0o600);
    await store.close();
  });

  it('tightens an existing file that others could read', async () => {
    const path = join(dir, 'state.db');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    await (await openStateStore(path)).close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
