// Opens a seller's StateStore where the configuration keeps it: PostgreSQL when it names a URL, else the sqlite
// file. Both are the one kysely store (kysely-state-store.ts) on a StateDatabase of their dialect.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { silentLogger, type Logger } from '../log/logger.ts';
import { KyselyStateStore } from './kysely-state-store.ts';
import type { LeaseClock } from './lease-clock.ts';
import {
  openPostgresStateDatabase,
  type PostgresStateDatabase,
  type PostgresStateOptions,
} from './postgres-state-database.ts';
import { FILE_SELLER, openSqliteStateDatabase } from './sqlite-state-database.ts';
import type { StateStore } from './state-store.ts';

export interface StateLocation {
  /** The sqlite file (or ':memory:'); unused with a URL. */
  readonly path: string;
  /** postgres://...; empty for sqlite. */
  readonly url: string;
  /** PGPASSWORD, used when the URL has none. */
  readonly password?: string;
  /** Runs kept after each run (state.keepRuns). */
  readonly keepRuns?: number;
}

export interface OpenStateStoreOptions {
  /** Default: silent. */
  readonly logger?: Logger;
  /** Epoch ms; tests pass a fake. Default Date.now. */
  readonly now?: () => number;
  /** sqlite's lease clock; tests pass a fake. Default: the machine's monotonic clock (lease-clock.ts). */
  readonly leaseClock?: LeaseClock;
  /** How long a write waits for another process's lock before failing (sqlite). Default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /** Run history kept by pruneHistory: the newest runs, with their settled journal entries. Default 200. */
  readonly keepRuns?: number;
}

/** True when the state lives in PostgreSQL. */
export function isPostgres(loc: StateLocation): boolean {
  return loc.url !== '';
}

/** The sqlite state db at `path` (':memory:' or '' for a private one), migrated; close() closes the file. */
export async function openStateStore(path: string, opts: OpenStateStoreOptions = {}): Promise<KyselyStateStore> {
  // An option left undefined takes its default there (busy timeout, keepRuns, clock) as one not given would.
  const { database, migrations } = await openSqliteStateDatabase(path, { busyTimeoutMs: opts.busyTimeoutMs });
  const log = (opts.logger ?? silentLogger).child({ component: 'state', path });
  for (const m of migrations)
    if (m.status === 'applied') log.info({ version: m.version, name: m.name }, 'state db migrated');
  try {
    return new KyselyStateStore(database, FILE_SELLER, {
      now: opts.now,
      leaseClock: opts.leaseClock,
      keepRuns: opts.keepRuns,
      ownsDatabase: true,
      migrations,
    });
  } catch (err) {
    await database.close();
    throw err;
  }
}

const SELLER_ID = /^[a-z0-9-]+$/;

/**
 * One seller's state in PostgreSQL: on `database` when given (many sellers share one pool; its owner closes it),
 * else on a pool of its own that close() ends.
 */
export async function openPostgresStateStore(
  seller: string,
  conn: PostgresStateOptions,
  opts: Omit<OpenStateStoreOptions, 'busyTimeoutMs'> & { readonly database?: PostgresStateDatabase } = {},
): Promise<KyselyStateStore> {
  if (!SELLER_ID.test(seller)) throw new Error(`seller id "${seller}": expected lowercase letters, digits and -`);
  const options = { now: opts.now, keepRuns: opts.keepRuns };
  if (opts.database) return new KyselyStateStore(opts.database, seller, options);
  const { database, migrations } = await openPostgresStateDatabase(conn, opts.logger);
  return new KyselyStateStore(database, seller, { ...options, ownsDatabase: true, migrations });
}

export async function openSellerStateStore(
  loc: StateLocation,
  seller: string,
  opts: { readonly logger: Logger; readonly database?: PostgresStateDatabase },
): Promise<StateStore> {
  if (isPostgres(loc)) {
    return openPostgresStateStore(
      seller,
      { url: loc.url, ...(loc.password ? { password: loc.password } : {}) },
      {
        logger: opts.logger,
        ...(loc.keepRuns ? { keepRuns: loc.keepRuns } : {}),
        ...(opts.database ? { database: opts.database } : {}),
      },
    );
  }
  // dirname(':memory:') and dirname('') are '.', which exists: recursive leaves an existing folder as it is.
  mkdirSync(dirname(loc.path), { recursive: true, mode: 0o700 });
  return openStateStore(loc.path, { logger: opts.logger, ...(loc.keepRuns ? { keepRuns: loc.keepRuns } : {}) });
}
