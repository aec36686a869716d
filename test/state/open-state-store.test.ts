// Which store a configuration opens: the sqlite file (its folder made owner-only) without a URL, PostgreSQL with
// one, with the password, retention, clock and a shared connection passed through, or a pool of its own that
// close() ends; and what a person reads when the PostgreSQL server cannot be reached (the URL without its
// password) or the seller's id cannot name its rows.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { isPostgres, openPostgresStateStore, openSellerStateStore } from '../../src/state/open-state-store.ts';
import { KyselyStateStore } from '../../src/state/kysely-state-store.ts';
import { PostgresError } from '../../src/state/postgres-error.ts';
import { openPostgresStateDatabase } from '../../src/state/postgres-state-database.ts';
import type { StateStore } from '../../src/state/state-store.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { until } from '../support/until.ts';

/** A logger whose JSON lines the test reads. */
function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ format: 'json', destination: { write: (l: string) => lines.push(JSON.parse(l)) } });
  return { logger, lines };
}

/** Three finished runs: with keepRuns 1, pruning drops two of them. */
async function threeRuns(store: StateStore): Promise<void> {
  for (const id of ['run-1', 'run-2', 'run-3']) {
    await store.runStart(id, 'reconcile');
    await store.runEnd(id, 'converged', {});
  }
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'offersync-open-state-'));
  dirs.push(dir);
  return dir;
}

describe('openSellerStateStore without a URL', () => {
  it('opens the sqlite file, creating its folder owner-only, with the logger and keepRuns given', async () => {
    const folder = join(tempDir(), 'not', 'yet');
    const path = join(folder, 'state.db');
    const loc = { path, url: '', keepRuns: 1 };
    expect(isPostgres(loc)).toBe(false);
    const { logger, lines } = memoryLogger();
    const store = await openSellerStateStore(loc, 'shop-1', { logger });
    expect(store).toBeInstanceOf(KyselyStateStore);
    expect((store as KyselyStateStore).path).toBe(path);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(lines.filter((l) => l.msg === 'state db migrated').length).toBeGreaterThan(0);
    await threeRuns(store);
    expect((await store.pruneHistory()).runs).toBe(2);
    await store.upsertOffer('item', 'sku-1', { remoteId: 7 });
    store.close();
    // The file is the state: opened again, it holds what was written.
    const again = await openSellerStateStore(loc, 'shop-1', { logger });
    expect((await again.getOffer('item', 'sku-1'))?.remoteId).toBe(7);
    again.close();
  });

  it('keeps 200 runs when keepRuns is not set, and needs no folder for :memory:', async () => {
    const { logger } = memoryLogger();
    const store = await openSellerStateStore({ path: ':memory:', url: '' }, 'shop-1', { logger });
    await threeRuns(store);
    expect((await store.pruneHistory()).runs).toBe(0);
    store.close();
  });
});

describe('openSellerStateStore with a URL', () => {
  it('opens PostgreSQL, not the file: an unreachable server named without its password, no folder made', async () => {
    const folder = join(tempDir(), 'unused');
    const loc = { path: join(folder, 'state.db'), url: 'postgres://sync:s3cret-pw@127.0.0.1:1/offers', password: 'x' };
    expect(isPostgres(loc)).toBe(true);
    const { logger } = memoryLogger();
    let err: unknown;
    try {
      await openSellerStateStore(loc, 'shop-1', { logger });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PostgresError);
    expect((err as Error).message).toMatch(
      /^state db postgres:\/\/sync:\*\*\*@127\.0\.0\.1:1\/offers: connect ECONNREFUSED 127\.0\.0\.1:1/,
    );
    expect((err as Error).message).not.toContain('s3cret-pw');
    expect(() => statSync(folder)).toThrow(/ENOENT/);
  });

  it('refuses a seller id that is not lowercase letters, digits and -, before any connection', async () => {
    // The URL leads nowhere: a connection tried would fail with ECONNREFUSED instead.
    const loc = { path: '', url: 'postgres://nobody@127.0.0.1:1/none' };
    const { logger } = memoryLogger();
    for (const seller of ['Shop-1', 'shop_1', 'shop 1', ''])
      await expect(openSellerStateStore(loc, seller, { logger })).rejects.toThrow(
        `seller id "${seller}": expected lowercase letters, digits and -`,
      );
  });

  describe('against a real server', () => {
    let server: TestPostgres;
    let url: string;
    beforeAll(async () => {
      server = await startPostgres();
      url = await server.createDatabase();
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('passes the password given apart from the URL, and keepRuns, to the seller store it opens', async () => {
      const bare = new URL(url);
      bare.password = '';
      const { logger } = memoryLogger();
      const store = await openSellerStateStore(
        { path: '', url: bare.toString(), password: server.password, keepRuns: 1 },
        'shop-1',
        { logger },
      );
      expect(store).toBeInstanceOf(KyselyStateStore);
      expect((store as KyselyStateStore).seller).toBe('shop-1');
      await threeRuns(store);
      expect((await store.pruneHistory()).runs).toBe(2);
      store.close();
    });

    it('uses the pool given rather than opening one of its own, and leaves it open at close', async () => {
      const { database } = await openPostgresStateDatabase({ url });
      try {
        const { logger } = memoryLogger();
        // The URL leads nowhere: only the database given can serve the store.
        const store = await openSellerStateStore({ path: '', url: 'postgres://nobody@127.0.0.1:1/none' }, 'shop-2', {
          logger,
          database,
        });
        await threeRuns(store);
        expect((await store.pruneHistory()).runs).toBe(0);
        await store.close();
        const one = await database.db.selectNoFrom(sql<number>`1`.as('n')).execute();
        expect(one).toEqual([{ n: 1 }]);
      } finally {
        await database.close();
      }
    });

    it('opens a seller on a pool of its own, with the clock given, and ends the pool at close', async () => {
      const own = await server.createDatabase();
      const name = new URL(own).pathname.slice(1);
      const watcher = new pg.Client({ connectionString: server.url });
      await watcher.connect();
      const connections = async () =>
        (
          await watcher.query<{ n: number }>(
            'select count(*)::int as n from pg_stat_activity where datname = $1 and backend_type = $2',
            [name, 'client backend'],
          )
        ).rows[0]?.n ?? 0;
      try {
        const store = await openPostgresStateStore('shop-3', { url: own }, { now: () => 1_234_567 });
        expect(store.migrations.map((m) => m.status)).toContain('applied');
        await store.runStart('run-1', 'reconcile');
        expect((await store.listRuns(1))[0]?.startedAt).toBe(1_234_567);
        expect(await connections()).toBeGreaterThan(0);
        await store.close();
        // Ended, not left idle: no statement goes through it, and the server sees its connections go.
        await expect(store.listRuns(1)).rejects.toThrow(/destroyed/);
        await until('the store to end its pool', async () => (await connections()) === 0, 10_000, 50);
      } finally {
        await watcher.end();
      }
    });
  });
});
