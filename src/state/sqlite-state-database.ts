// The state db in a sqlite file (docs/architecture.md: Journal, Secrets): better-sqlite3 behind kysely's
// SqliteDialect, WAL, file mode 0600, migrated on open. better-sqlite3 answers synchronously; kysely gives it an
// asynchronous face (a microtask a statement), so the store is the same as PostgreSQL's. A file holds one seller.
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  Kysely,
  SqliteAdapter,
  type SqliteDatabase,
  type SqliteDialectConfig,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';
import { ConnectionLock } from './connection-lock.ts';
import { type MigrationResult, migrateState } from './migrations.ts';
import { type OfferKeyPair, type OfferView, VIEW_PAGE } from './offer-view.ts';
import type { StateKind } from './records.ts';
import { OFFER_COLUMNS, offerFromTuple, StringPool } from './rows.ts';
import type { Database } from './db-schema.ts';
import type { StateDatabase } from './state-database.ts';
import { StateDbError, stateDbFault } from './state-db-fault.ts';
import type { HotStatements } from './hot-ops.ts';
import { sqliteHotStatements } from './sqlite-hot-statements.ts';

export interface SqliteStateOptions {
  /** How long a write waits for another process's lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
}

/** The seller of every row in a file. */
export const FILE_SELLER = '';

/** Owner read/write only: the db holds HMACs, ids and the seller's catalogue data (docs/architecture.md, Secrets). */
const FILE_MODE = 0o600;

/** Offers looked up per statement by OfferView.getMany. */
const LOOKUP_BATCH = 200;

/**
 * Write transactions take the write lock when they begin (BEGIN IMMEDIATE): a transaction that read first and
 * wrote later could otherwise fail at once when another process wrote meanwhile, instead of waiting its turn.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #lock: ConnectionLock;

  constructor(config: SqliteDialectConfig, lock: ConnectionLock) {
    super(config);
    this.#lock = lock;
  }

  // kysely's own mutex sees one taker at a time: the lock, shared with the hot ops, orders them all.
  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.#lock.take();
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    this.#lock.free();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** The state db file opened and migrated; a damaged, full or forbidden file is a StateDbError naming it. */
export async function openSqliteStateDatabase(
  path: string,
  opts: SqliteStateOptions = {},
): Promise<{ database: StateDatabase; migrations: MigrationResult[] }> {
  try {
    return await openSqlite(path, opts);
  } catch (err) {
    const fault = stateDbFault(err);
    throw fault && !(err instanceof StateDbError) ? new StateDbError(path, fault, err) : err;
  }
}

async function openSqlite(
  path: string,
  opts: SqliteStateOptions,
): Promise<{ database: StateDatabase; migrations: MigrationResult[] }> {
  const onDisk = path !== ':memory:' && path !== '';
  // Create the file 0600 before SQLite does (it would use 0644 under the usual umask), and tighten one that
  // already exists.
  if (onDisk) {
    closeSync(openSync(path, 'a', FILE_MODE));
    chmodSync(path, FILE_MODE);
  }
  const raw = new BetterSqlite3(path);
  const lock = new ConnectionLock();
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new ImmediateSqliteDriver({ database: preparedOnce(raw) }, lock),
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  const database = new SqliteStateDatabase(raw, db, path, lock);
  try {
    raw.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
    raw.pragma('journal_mode = WAL');
    // NORMAL is safe against a killed process in WAL mode (docs/architecture.md, Journal); only a power cut can
    // lose the last commits.
    raw.pragma('synchronous = NORMAL');
    raw.pragma('foreign_keys = ON');
    const migrations = await migrateState(db, 'sqlite', path);
    // SQLite gives -wal and -shm the db file's mode; this is the belt to those braces.
    if (onDisk)
      for (const suffix of ['-wal', '-shm']) if (existsSync(path + suffix)) chmodSync(path + suffix, FILE_MODE);
    return { database, migrations };
  } catch (err) {
    await database.close();
    throw err;
  }
}

/**
 * kysely's SqliteDriver prepares a statement for every query, and better-sqlite3 frees a prepared statement only
 * when its database closes (a statement the garbage collector drops keeps its native memory): a daemon would grow
 * by a few KB a statement, for good. Each SQL text is prepared once and reused; the texts are the store's own
 * queries (a multi-row insert has one per row count), so the cache stays small. kysely runs one query at a time on
 * the connection, so a statement is never used by two queries at once.
 */
export function preparedOnce(raw: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(text: string) {
      let statement = statements.get(text);
      if (!statement) {
        statement = raw.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
    close: () => raw.close(),
  };
}

class SqliteStateDatabase implements StateDatabase {
  readonly dialect = 'sqlite' as const;
  readonly #raw: BetterSqlite3.Database;
  readonly db: Kysely<Database>;
  readonly where: string;
  readonly hot: HotStatements;
  #statements: ReturnType<typeof prepareViewStatements> | undefined;

  constructor(raw: BetterSqlite3.Database, db: Kysely<Database>, where: string, lock: ConnectionLock) {
    this.#raw = raw;
    this.db = db;
    this.where = where;
    this.hot = sqliteHotStatements(raw, lock);
  }

  /** One machine: the store's clock sets and judges expiry. */
  clock(storeNow: number) {
    return sql<number>`${storeNow}`;
  }

  /**
   * Looks offers up by key as the planner asks, and reads keys and records in keyset pages of VIEW_PAGE: 100,000
   * state records are never held at once, and no statement stays open between two pages (better-sqlite3 allows
   * no other statement while one iterates). Read straight from better-sqlite3: a file answers in microseconds.
   */
  async offerView(seller: string): Promise<OfferView> {
    this.#statements ??= prepareViewStatements(this.#raw);
    const s = this.#statements;
    const pool = new StringPool();
    const many = async (keys: readonly OfferKeyPair[]) => getMany(s.many, seller, keys, pool);
    return {
      get: async (kind, externalId) => (await many([[kind, externalId]]))[0],
      getMany: many,
      async *keyPages() {
        for (let after: readonly [string, string] = ['', '']; ; ) {
          const page = s.keysAfter.all(seller, after[0], after[1], VIEW_PAGE) as [StateKind, string][];
          if (page.length > 0) yield page;
          if (page.length < VIEW_PAGE) return;
          after = page.at(-1)!;
        }
      },
      async *pages() {
        for (let after: readonly [string, string] = ['', '']; ; ) {
          const page = s.listAfter.all(seller, after[0], after[1], VIEW_PAGE).map((t) => offerFromTuple(t, pool));
          if (page.length > 0) yield page;
          if (page.length < VIEW_PAGE) return;
          after = [page.at(-1)!.kind, page.at(-1)!.externalId];
        }
      },
      // count(*) answers one row, whatever matches.
      countManaged: async () => Number((s.countManaged.get(seller) as unknown[])[0]),
    };
  }

  async close(): Promise<void> {
    // Closed at once, folding the WAL back into the file: a statement after it fails with "not open". (kysely's
    // driver would do no more than this, a tick later.) better-sqlite3 makes a second close a no-op.
    this.#raw.close();
  }
}

function prepareViewStatements(raw: BetterSqlite3.Database) {
  const columns = OFFER_COLUMNS.join(', ');
  const tuples = (text: string) => raw.prepare<unknown[], unknown[]>(text).raw(true);
  return {
    many: tuples(
      `SELECT ${columns} FROM offers WHERE seller = ? AND kind = ? AND external_id IN ` +
        `(${Array.from({ length: LOOKUP_BATCH }, () => '?').join(', ')})`,
    ),
    // ('', '') comes before every key: the first page.
    listAfter: tuples(
      `SELECT ${columns} FROM offers WHERE seller = ? AND (kind, external_id) > (?, ?) ` +
        'ORDER BY kind, external_id LIMIT ?',
    ),
    keysAfter: tuples(
      'SELECT kind, external_id FROM offers WHERE seller = ? AND (kind, external_id) > (?, ?) ' +
        'ORDER BY kind, external_id LIMIT ?',
    ),
    countManaged: tuples(
      'SELECT count(*) FROM offers WHERE seller = ? AND managed = 1 ' +
        "AND (remote_status IS NULL OR remote_status != 'archived')",
    ),
  };
}

/**
 * Rows of one kind by external_id, LOOKUP_BATCH at a time: a 100,000-offer plan asks for each of its offers, and
 * one statement per offer was most of its time. Unused slots are NULL, which matches nothing.
 */
function getMany(
  many: BetterSqlite3.Statement<unknown[], unknown[]>,
  seller: string,
  keys: readonly OfferKeyPair[],
  pool: StringPool,
) {
  const out: (ReturnType<typeof offerFromTuple> | undefined)[] = new Array(keys.length).fill(undefined);
  const byKind = new Map<StateKind, number[]>();
  keys.forEach(([kind], i) => {
    const at = byKind.get(kind);
    if (at) at.push(i);
    else byKind.set(kind, [i]);
  });
  for (const [kind, positions] of byKind) {
    for (let from = 0; from < positions.length; from += LOOKUP_BATCH) {
      const part = positions.slice(from, from + LOOKUP_BATCH);
      const where = new Map<string, number[]>();
      const ids: (string | null)[] = new Array(LOOKUP_BATCH).fill(null);
      part.forEach((pos, j) => {
        const id = keys[pos]![1];
        ids[j] = id;
        const at = where.get(id);
        if (at) at.push(pos);
        else where.set(id, [pos]);
      });
      for (const t of many.iterate(seller, kind, ...ids)) {
        const rec = offerFromTuple(t, pool);
        // Only ids asked for come back, and each has its positions.
        for (const pos of where.get(rec.externalId)!) out[pos] = rec;
      }
    }
  }
  return out;
}
