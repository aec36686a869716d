// What only the sqlite store does: where its db lives (a file, memory or a private temporary db), what it logs
// when it migrates, how it waits for another process's write lock, the modes of its files, and closing.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { MIGRATIONS } from '../../src/state/migrations.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';

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
