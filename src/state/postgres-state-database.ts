// The state db in PostgreSQL: kysely's PostgresDialect on a pg.Pool, one per process, shared by the stores of
// every seller it serves and by the replica registry. Nothing waits on the database but the promise that asked:
// while it answers (or does not), HTTP, timers, lease heartbeats and /healthz go on.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { silentLogger, type Logger } from '../log/logger.ts';
import { type MigrationResult, migrateState } from './migrations.ts';
import type { OfferView } from './offer-view.ts';
import { isManagedListed } from './offer-view.ts';
import { PostgresError, redactUrl } from './postgres-error.ts';
import type { OfferRecord, StateKind } from './records.ts';
import { OFFER_COLUMNS, offerFromTuple, StringPool } from './rows.ts';
import type { Database } from './schema.ts';
import type { StateDatabase } from './state-database.ts';

export interface PostgresStateOptions {
  /** postgres://user[:password]@host:port/database */
  readonly url: string;
  /** Used when the URL has none (PGPASSWORD, OFFERSYNC_STATE_URL_FILE). */
  readonly password?: string;
  /** The server cancels a statement after this long. Default 30 s. */
  readonly statementTimeoutMs?: number;
  /** A connection not made within this long fails the statement that wanted it. Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** Connections in the pool, shared by every seller of the process. Default 24. */
  readonly maxConnections?: number;
}

/** Epoch ms by the database's clock: replicas on different machines judge leases by this one clock. */
export const DB_NOW = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** Offers read per page when a plan reads the state (keyset order: kind, external_id). */
const VIEW_PAGE = 2000;

// Epoch milliseconds are BIGINT columns, well inside 2^53: numbers, as SQLite returns them. Per pool, not global.
const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 && format !== 'binary' ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as never,
};

/** node-postgres lets the URL's (missing) password win over a separate one: put it into the URL. */
function withPassword(url: string, password: string | undefined): string {
  const u = new URL(url);
  if (password !== undefined && !u.password) u.password = encodeURIComponent(password);
  return u.toString();
}

/** Opens the pool and brings the schema up to date; one per process serves every seller. */
export async function openPostgresStateDatabase(
  opts: PostgresStateOptions,
  logger: Logger = silentLogger,
): Promise<{ database: PostgresStateDatabase; migrations: MigrationResult[] }> {
  const where = redactUrl(opts.url);
  let connectionString: string;
  let secrets: string[];
  try {
    connectionString = withPassword(opts.url, opts.password);
    secrets = [decodeURIComponent(new URL(opts.url).password), opts.password ?? ''].filter((s) => s.length > 0);
  } catch {
    throw new PostgresError(`state.url is not a URL: expected postgres://user@host:5432/database`, undefined);
  }
  const pool = new pg.Pool({
    connectionString,
    max: opts.maxConnections ?? 24,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    statement_timeout: opts.statementTimeoutMs ?? 30_000,
    application_name: 'offersync',
    types,
  });
  // A dropped idle connection is reported by the next statement that needs one; unheard, it would end the process.
  pool.on('error', () => undefined);
  const database = new PostgresStateDatabase(pool, where, secrets);
  try {
    const migrations = await database.run(() => migrateState(database.db, 'postgres', where));
    for (const m of migrations)
      if (m.status === 'applied')
        logger.info({ component: 'state', version: m.version, name: m.name }, 'state db migrated');
    return { database, migrations };
  } catch (err) {
    await database.close();
    throw err;
  }
}

export class PostgresStateDatabase implements StateDatabase {
  readonly dialect = 'postgres' as const;
  readonly db: Kysely<Database>;
  readonly where: string;
  readonly #pool: pg.Pool;
  readonly #secrets: readonly string[];
  #closed = false;

  constructor(pool: pg.Pool, where: string, secrets: readonly string[]) {
    this.#pool = pool;
    this.where = where;
    this.#secrets = secrets;
    this.db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }

  clock(): ReturnType<StateDatabase['clock']> {
    return DB_NOW;
  }

  /** Runs fn, with a failure of the database told as a PostgresError naming it without its password. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof PostgresError || !isDriverError(err)) throw err;
      const e = err as { message?: string; code?: string };
      throw new PostgresError(`state db ${this.where}: ${this.#scrub(String(e.message ?? err))}`, e.code);
    }
  }

  #scrub(text: string): string {
    let out = text;
    for (const s of this.#secrets) out = out.split(s).join('***');
    return out;
  }

  /**
   * The seller's offers read in keyset pages of VIEW_PAGE (one round trip each, never one per offer), kept as
   * compact records: each holds its last-applied fields as the JSON text the db holds, parsed when read, and
   * repeated strings once. The planner then reads them without a round trip, as it must (it awaits nothing).
   */
  async offerView(seller: string): Promise<OfferView> {
    const pool = new StringPool();
    const records: OfferRecord[] = [];
    let after: readonly [string, string] | undefined;
    for (;;) {
      const page = await this.run(() =>
        this.db
          .selectFrom('offers')
          .select(OFFER_COLUMNS)
          .where('seller', '=', seller)
          .$if(after !== undefined, (q) =>
            q.where((eb) => eb(eb.refTuple('kind', 'external_id'), '>', eb.tuple(after![0], after![1]))),
          )
          .orderBy('kind')
          .orderBy('external_id')
          .limit(VIEW_PAGE)
          .execute(),
      );
      for (const r of page)
        records.push(
          offerFromTuple(
            OFFER_COLUMNS.map((c) => r[c]),
            pool,
          ),
        );
      const last = page.at(-1);
      if (!last || page.length < VIEW_PAGE) break;
      after = [last.kind, last.external_id];
    }
    return recordsView(records);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // kysely's driver ends the pool.
    await this.db.destroy().catch(() => undefined);
  }

  /** Connections open and waiting for one, for /readyz and the bench. */
  poolStats(): { total: number; idle: number; waiting: number } {
    return { total: this.#pool.totalCount, idle: this.#pool.idleCount, waiting: this.#pool.waitingCount };
  }
}

/** A view over records in (kind, external_id) order, looked up by key. */
function recordsView(records: readonly OfferRecord[]): OfferView {
  const byKind = new Map<StateKind, Map<string, OfferRecord>>();
  let managed = 0;
  for (const r of records) {
    let m = byKind.get(r.kind);
    if (!m) {
      m = new Map();
      byKind.set(r.kind, m);
    }
    m.set(r.externalId, r);
    if (isManagedListed(r)) managed++;
  }
  const get = (kind: StateKind, externalId: string) => byKind.get(kind)?.get(externalId);
  return {
    get,
    getMany: (keys) => keys.map(([kind, externalId]) => get(kind, externalId)),
    all: () => records,
    *keys() {
      for (const r of records) yield [r.kind, r.externalId] as const;
    },
    countManaged: () => managed,
  };
}

/** An error from node-postgres or the network, as opposed to one of offersync's own. */
function isDriverError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' || err.message.includes('timeout') || err.message.includes('Connection terminated');
}
