// The StateStore implementations the shared suite runs against: the sqlite file and a real PostgreSQL
// (embedded, on 127.0.0.1, started once per test file). Each PostgreSQL test gets a seller of its own in one
// database, which also checks that sellers do not see each other's rows.
import { openPostgresConnection, PostgresStateStore } from '../../src/state/postgres-state-store.ts';
import { openStateStore } from '../../src/state/sqlite-state-store.ts';
import type { StateStore } from '../../src/state/state-store.ts';
import type { SyncPostgresConnection } from '../../src/state/sync-postgres-connection.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';

export interface StateBackend {
  readonly name: 'sqlite' | 'postgres';
  /** Once per file, before any open (beforeAll). */
  setup(): Promise<void>;
  teardown(): Promise<void>;
  open(now: () => number, keepRuns?: number): StateStore;
}

export function sqliteBackend(): StateBackend {
  return {
    name: 'sqlite',
    async setup() {},
    async teardown() {},
    open: (now, keepRuns) => openStateStore(':memory:', { now, ...(keepRuns === undefined ? {} : { keepRuns }) }),
  };
}

export function postgresBackend(): StateBackend {
  let server: TestPostgres | undefined;
  let connection: SyncPostgresConnection | undefined;
  let n = 0;
  return {
    name: 'postgres',
    async setup() {
      server = await startPostgres();
      connection = openPostgresConnection({ url: await server.createDatabase() }).connection;
    },
    async teardown() {
      connection?.close();
      await server?.stop();
    },
    open(now, keepRuns) {
      if (!connection) throw new Error('postgresBackend: setup() first');
      return new PostgresStateStore(`seller-${++n}`, connection, false, {
        now,
        ...(keepRuns === undefined ? {} : { keepRuns }),
      });
    },
  };
}

export const STATE_BACKENDS: readonly (() => StateBackend)[] = [sqliteBackend, postgresBackend];
