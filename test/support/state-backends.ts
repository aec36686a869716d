// The StateStore implementations the shared suite runs against: the sqlite file and a real PostgreSQL
// (embedded, on 127.0.0.1, started once per test file). Each PostgreSQL test gets a seller of its own in one
// database, which also checks that sellers do not see each other's rows.
import { KyselyStateStore } from '../../src/state/kysely-state-store.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { openPostgresStateDatabase, type PostgresStateDatabase } from '../../src/state/postgres-state-database.ts';
import type { StateStore } from '../../src/state/state-store.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';

export interface StateBackend {
  readonly name: 'sqlite' | 'postgres';
  /** Once per file, before any open (beforeAll). */
  setup(): Promise<void>;
  teardown(): Promise<void>;
  open(now: () => number, keepRuns?: number): Promise<StateStore>;
}

export function sqliteBackend(): StateBackend {
  return {
    name: 'sqlite',
    async setup() {},
    async teardown() {},
    open: async (now, keepRuns) =>
      await openStateStore(':memory:', { now, ...(keepRuns === undefined ? {} : { keepRuns }) }),
  };
}

export function postgresBackend(): StateBackend {
  let server: TestPostgres | undefined;
  let database: PostgresStateDatabase | undefined;
  let n = 0;
  return {
    name: 'postgres',
    async setup() {
      server = await startPostgres();
      database = (await openPostgresStateDatabase({ url: await server.createDatabase() })).database;
    },
    async teardown() {
      await database?.close();
      await server?.stop();
    },
    async open(now, keepRuns) {
      if (!database) throw new Error('postgresBackend: setup() first');
      return new KyselyStateStore(database, `seller-${++n}`, {
        now,
        ...(keepRuns === undefined ? {} : { keepRuns }),
      });
    },
  };
}

export const STATE_BACKENDS: readonly (() => StateBackend)[] = [sqliteBackend, postgresBackend];
