// The state db in PostgreSQL: kysely's PostgresDialect on a pg.Pool, one per process, shared by the stores of
// every seller it serves and by the replica registry. Nothing waits on the database but the promise that asked:
// while it answers (or does not), HTTP, timers, lease heartbeats and /healthz go on.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { silentLogger, type Logger } from '../log/logger.ts';
import { type MigrationResult, migrateState } from './migrations.ts';
import { type OfferKeyPair, type OfferView, VIEW_PAGE } from './offer-view.ts';
import { PostgresError, redactUrl } from './postgres-error.ts';
import type { OfferRecord, StateKind } from './records.ts';
import { OFFER_COLUMNS, offerFromTuple, StringPool } from './rows.ts';
import type { Database } from './db-schema.ts';
import type { StateDatabase } from './state-database.ts';
import type { HotStatements } from './hot-ops.ts';
import { postgresHotStatements } from './postgres-hot-statements.ts';

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

const DB_NOW_TEXT = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
/** Epoch ms by the database's clock: replicas on different machines judge leases by this one clock. */
export const DB_NOW = sql<number>`${sql.raw(DB_NOW_TEXT)}`;

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
  readonly hot: HotStatements;
  readonly #pool: pg.Pool;
  readonly #secrets: readonly string[];
  #closed = false;

  constructor(pool: pg.Pool, where: string, secrets: readonly string[]) {
    this.#pool = pool;
    this.where = where;
    this.#secrets = secrets;
    this.db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    this.hot = postgresHotStatements(pool, DB_NOW_TEXT, (fn) => this.run(fn));
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
   * The seller's offers as a run reads them: by key, a page of keys per round trip (never one per offer), and
   * keys or records in keyset pages of VIEW_PAGE. Nothing is read before it is asked for, nor kept after: the
   * reader holds a page at a time. A record keeps its last-applied fields as the JSON text the db holds, parsed
   * when read, and repeated strings (status, source file) once.
   */
  async offerView(seller: string): Promise<OfferView> {
    const pool = new StringPool();
    const offers = () => this.db.selectFrom('offers').where('seller', '=', seller);
    // The page after `key` (the first page without one), in the primary key's order.
    const after = (key: OfferKeyPair | undefined) =>
      offers()
        .$if(key !== undefined, (q) =>
          q.where((eb) => eb(eb.refTuple('kind', 'external_id'), '>', eb.tuple(key![0], key![1]))),
        )
        .orderBy('kind')
        .orderBy('external_id')
        .limit(VIEW_PAGE);
    const records = (rows: readonly Record<(typeof OFFER_COLUMNS)[number], unknown>[]) =>
      rows.map((r) =>
        offerFromTuple(
          OFFER_COLUMNS.map((c) => r[c]),
          pool,
        ),
      );
    const getMany = async (keys: readonly OfferKeyPair[]) => {
      const byKey = new Map<string, OfferRecord>();
      for (const [kind, ids] of idsByKind(keys)) {
        for (let from = 0; from < ids.length; from += VIEW_PAGE) {
          const part = ids.slice(from, from + VIEW_PAGE);
          const rows = await this.run(() =>
            offers()
              .select(OFFER_COLUMNS)
              .where('kind', '=', kind)
              .where(sql<boolean>`external_id = any(${part}::text[])`)
              .execute(),
          );
          for (const r of records(rows)) byKey.set(`${r.kind}\u0000${r.externalId}`, r);
        }
      }
      return keys.map(([kind, externalId]) => byKey.get(`${kind}\u0000${externalId}`));
    };
    const run = <T>(fn: () => Promise<T>) => this.run(fn);
    return {
      get: async (kind, externalId) => (await getMany([[kind, externalId]]))[0],
      getMany,
      async *keyPages() {
        for (let key: OfferKeyPair | undefined; ; ) {
          const rows = await run(() => after(key).select(['kind', 'external_id']).execute());
          const page = rows.map((r) => [r.kind as StateKind, r.external_id] as const);
          if (page.length > 0) yield page;
          if (page.length < VIEW_PAGE) return;
          key = page.at(-1);
        }
      },
      async *pages() {
        for (let key: OfferKeyPair | undefined; ; ) {
          const page = records(await run(() => after(key).select(OFFER_COLUMNS).execute()));
          if (page.length > 0) yield page;
          if (page.length < VIEW_PAGE) return;
          key = [page.at(-1)!.kind, page.at(-1)!.externalId];
        }
      },
      countManaged: async () => {
        const row = await run(() =>
          offers()
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('managed', '=', 1)
            .where((eb) => eb.or([eb('remote_status', 'is', null), eb('remote_status', '!=', 'archived')]))
            .executeTakeFirstOrThrow(),
        );
        return Number(row.n);
      },
    };
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

/** The external_ids asked for, by kind. */
function idsByKind(keys: readonly OfferKeyPair[]): Map<StateKind, string[]> {
  const out = new Map<StateKind, string[]>();
  for (const [kind, externalId] of keys) {
    const ids = out.get(kind);
    if (ids) ids.push(externalId);
    else out.set(kind, [externalId]);
  }
  return out;
}

/** An error from node-postgres or the network, as opposed to one of offersync's own. */
function isDriverError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' || err.message.includes('timeout') || err.message.includes('Connection terminated');
}
