import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  latestSchemaVersion,
  migrate,
  MIGRATIONS,
  StateSchemaTooNewError,
  type Migration,
} from '../../src/state/migrations.ts';
import { openStateStore } from '../../src/state/sqlite-state-store.ts';

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

describe('migrations', () => {
  it('creates every table in an empty file, and reopening changes nothing', () => {
    const path = join(dir, 'state.db');
    const first = openStateStore(path);
    expect(first.migrations).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name, status: 'applied' })));
    expect(first.getMeta('schema_version')).toBe(String(latestSchemaVersion()));
    first.upsertOffer('item', 'a', { remoteId: 1 });
    first.close();

    const again = openStateStore(path);
    expect(again.migrations.every((m) => m.status === 'already-applied')).toBe(true);
    expect(again.getOffer('item', 'a')?.remoteId).toBe(1);
    again.close();

    const db = new BetterSqlite3(path, { readonly: true });
    expect(tables(db)).toEqual(['capabilities', 'images', 'journal', 'lease', 'meta', 'offers', 'runs']);
    const indexes = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as { name: string }[]
    ).map((r) => r.name);
    expect(indexes).toEqual(expect.arrayContaining(['offers_remote_id', 'journal_state']));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('refuses a db written by a newer offersync, saying which versions', () => {
    const path = join(dir, 'state.db');
    openStateStore(path).close();
    const db = new BetterSqlite3(path);
    db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    db.close();
    expect(() => openStateStore(path)).toThrow(StateSchemaTooNewError);
    expect(() => openStateStore(path)).toThrow(
      `schema version 99, newer than this offersync knows (${latestSchemaVersion()})`,
    );
  });

  it('tells what to do about a newer db: upgrade, or another state.path', () => {
    const db = new BetterSqlite3(':memory:');
    migrate(db, '/srv/state.db', [{ version: 3, name: 'three', sql: 'SELECT 1' }]);
    let err: unknown;
    try {
      migrate(db, '/srv/state.db', [{ version: 1, name: 'one', sql: 'SELECT 1' }]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StateSchemaTooNewError);
    expect(err).toMatchObject({ name: 'StateSchemaTooNewError', path: '/srv/state.db', found: 3, known: 1 });
    expect((err as Error).message).toBe(
      'state db /srv/state.db has schema version 3, newer than this offersync knows (1); ' +
        'upgrade offersync, or point state.path at another file',
    );
  });

  it('stops when a newer offersync migrated the db meanwhile, rather than calling the rest already applied', () => {
    const db = new BetterSqlite3(':memory:');
    // The other process, in a trigger: as soon as version 1 is written, the db is at version 9.
    const v1: Migration = {
      version: 1,
      name: 'one',
      sql: `CREATE TRIGGER newer AFTER INSERT ON meta WHEN NEW.key = 'schema_version'
            BEGIN UPDATE meta SET value = '9' WHERE key = 'schema_version'; END`,
    };
    const v2: Migration = { version: 2, name: 'two', sql: 'CREATE TABLE b (y INTEGER)' };
    expect(() => migrate(db, ':memory:', [v1, v2])).toThrow('schema version 9, newer than this offersync knows (2)');
    expect(tables(db)).toEqual(['meta']);
  });

  it('names the migrations of this release', () => {
    expect(MIGRATIONS.map((m) => [m.version, m.name])).toEqual([
      [1, 'initial'],
      [2, 'lease-scope'],
      [3, 'sold-counts'],
    ]);
  });

  it('applies only the migrations a db lacks, in order, each with its version bump', () => {
    const db = new BetterSqlite3(':memory:');
    const v1: Migration = { version: 1, name: 'one', sql: 'CREATE TABLE a (x INTEGER)' };
    const v2: Migration = { version: 2, name: 'two', sql: 'CREATE TABLE b (y INTEGER)' };
    expect(migrate(db, ':memory:', [v1]).map((r) => r.status)).toEqual(['applied']);
    expect(migrate(db, ':memory:', [v2, v1])).toEqual([
      { version: 1, name: 'one', status: 'already-applied' },
      { version: 2, name: 'two', status: 'applied' },
    ]);
    expect(tables(db)).toEqual(['a', 'b', 'meta']);
  });

  it('rolls a failing migration back whole, version included', () => {
    const db = new BetterSqlite3(':memory:');
    const bad: Migration = { version: 1, name: 'bad', sql: 'CREATE TABLE a (x INTEGER); CREATE TABLE oops (' };
    expect(() => migrate(db, ':memory:', [bad])).toThrow();
    expect(tables(db)).toEqual(['meta']);
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toBeUndefined();
  });

  it('has strictly increasing versions from 1', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });
});

describe('state db file', () => {
  it('is created with mode 0600, and so are its -wal and -shm', () => {
    const path = join(dir, 'state.db');
    const store = openStateStore(path);
    store.upsertOffer('account', 'a', { managed: true });
    for (const f of [path, `${path}-wal`, `${path}-shm`]) expect(statSync(f).mode & 0o777).toBe(0o600);
    store.close();
  });

  it('tightens an existing file that others could read', () => {
    const path = join(dir, 'state.db');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    openStateStore(path).close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
