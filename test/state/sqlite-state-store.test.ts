// What only the sqlite store does: where its db lives (a file, memory or a private temporary db), what it logs
// when it migrates, how it waits for another process's write lock, the modes of its files, and closing.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InsertQueryNode, ValuesNode } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { MIGRATIONS } from '../../src/state/migrations.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { KyselyStateStore } from '../../src/state/kysely-state-store.ts';
import { FILE_SELLER, openSqliteStateDatabase } from '../../src/state/sqlite-state-database.ts';
import { watchedDatabase } from '../support/watched-database.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'offersync-sqlite-'));
  dirs.push(dir);
  return dir;
}

/** Another process that holds the db's write lock for holdMs, then commits; resolves once it holds it. */
function lockInAnotherProcess(path: string, holdMs: number): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const db = new (require('better-sqlite3'))(process.argv[1]);
       db.exec('BEGIN IMMEDIATE');
       process.stdout.write('locked\\n');
       setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${holdMs});`,
      path,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.stdout.on('data', () => resolve());
    child.on('exit', (code) => reject(new Error(`the locking process ended (${code}) before it held the lock`)));
  });
}

describe('sqlite state store', () => {
  it('keeps :memory: and the empty path (a private temporary db) off the disk', async () => {
    // Relative to the working directory, where a file named ':memory:' would land (tests may not chdir).
    const stray = join(process.cwd(), ':memory:');
    try {
      for (const path of [':memory:', '']) {
        const store = await openStateStore(path);
        await store.upsertOffer('item', 'a', { remoteId: 1 });
        expect((await store.getOffer('item', 'a'))?.remoteId).toBe(1);
        store.close();
      }
      expect(existsSync(stray)).toBe(false);
    } finally {
      rmSync(stray, { force: true });
    }
  });

  it('logs each migration it applies, with the db path, and nothing when the db is up to date', async () => {
    const path = join(tempDir(), 'state.db');
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ format: 'json', destination: { write: (l: string) => lines.push(JSON.parse(l)) } });
    await (await openStateStore(path, { logger })).close();
    expect(lines.map(({ component, path, version, name, msg }) => ({ component, path, version, name, msg }))).toEqual(
      MIGRATIONS.map((m) => ({ component: 'state', path, version: m.version, name: m.name, msg: 'state db migrated' })),
    );
    await (await openStateStore(path, { logger })).close();
    expect(lines).toHaveLength(MIGRATIONS.length);
  });

  it("waits for another process's write lock (5 s by default) rather than failing at once", async () => {
    const path = join(tempDir(), 'state.db');
    const store = await openStateStore(path);
    const impatient = await openStateStore(path, { busyTimeoutMs: 0 });
    try {
      await lockInAnotherProcess(path, 1_500);
      await expect(impatient.upsertOffer('item', 'a', {})).rejects.toThrow(/database is locked/);
      await store.upsertOffer('item', 'b', { remoteId: 2 });
      expect((await store.getOffer('item', 'b'))?.remoteId).toBe(2);
    } finally {
      impatient.close();
      store.close();
    }
  });

  it('tightens -wal and -shm that another connection made readable by others', async () => {
    const path = join(tempDir(), 'state.db');
    const first = await openStateStore(path);
    await first.upsertOffer('item', 'a', {});
    // As left by a tool that opened the db while it was still 0644: SQLite gave them the db's mode then, and
    // they live on while that connection does.
    for (const f of [`${path}-wal`, `${path}-shm`]) chmodSync(f, 0o644);
    const second = await openStateStore(path);
    for (const f of [path, `${path}-wal`, `${path}-shm`]) expect(statSync(f).mode & 0o777).toBe(0o600);
    second.close();
    first.close();
  });

  it('reads the usual empty lists as one shared frozen array, not one array per offer (100,000 a run)', async () => {
    const store = await openStateStore(':memory:');
    await store.upsertOffer('item', 'a', {});
    await store.upsertOffer('item', 'b', { lossyFields: ['rank'] });
    const [a, b] = await store.listOffers();
    expect(a?.imageHashes).toEqual([]);
    expect(b?.imageHashes).toBe(a?.imageHashes);
    expect(a?.lossyFields).toBe(a?.imageHashes);
    expect((await store.getOffer('item', 'a'))?.imageHashes).toBe(a?.imageHashes);
    expect(Object.isFrozen(a?.imageHashes)).toBe(true);
    expect(b?.lossyFields).toEqual(['rank']);
    store.close();
  });

  it('upserts offers 500 a statement, another where the patch changes shape or an offer comes again', async () => {
    // A statement a round trip: adopting 100,000 offers one INSERT each would take minutes against PostgreSQL.
    const { database } = await openSqliteStateDatabase(':memory:');
    const inserts: number[] = [];
    const watched = watchedDatabase(database, {
      before: ({ node }) => {
        if (
          InsertQueryNode.is(node) &&
          node.into?.table.identifier.name === 'offers' &&
          node.values &&
          ValuesNode.is(node.values)
        )
          inserts.push(node.values.values.length);
      },
    });
    const store = new KyselyStateStore(watched, FILE_SELLER, { ownsDatabase: true });
    await store.upsertOffers(
      Array.from({ length: 1_001 }, (_, i) => ({
        kind: 'item' as const,
        externalId: `sku-${i}`,
        patch: { remoteId: i + 1, managed: true },
      })),
    );
    expect(inserts).toEqual([500, 500, 1]);
    inserts.length = 0;
    await store.upsertOffers([
      { kind: 'item', externalId: 'a', patch: { remoteId: 1 } },
      { kind: 'account', externalId: 'a', patch: { remoteId: 2 } },
      { kind: 'item', externalId: 'a', patch: { remoteId: 3 } },
      { kind: 'item', externalId: 'b', patch: { remoteId: 4 } },
      { kind: 'item', externalId: 'b', patch: { managed: true } },
    ]);
    expect(inserts).toEqual([2, 2, 1]);
    // The later patch of an offer lands after the earlier one.
    const rows = (await store.listOffers()).map((o) => [o.kind, o.externalId, o.remoteId, o.managed]);
    expect(rows.slice(0, 3)).toEqual([
      ['account', 'a', 2, false],
      ['item', 'a', 3, false],
      ['item', 'b', 4, true],
    ]);
    expect(rows).toHaveLength(3 + 1_001);
    await store.close();
  });

  it('closes: the db is let go (its WAL folded back into the file) and a second close does nothing', async () => {
    const path = join(tempDir(), 'state.db');
    const store = await openStateStore(path);
    await store.upsertOffer('item', 'a', {});
    expect(existsSync(`${path}-wal`)).toBe(true);
    await store.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    await expect(store.getOffer('item', 'a')).rejects.toThrow(/not open/);
    await store.close();
  });
});
