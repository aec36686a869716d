// The schema of the state db, for SQLite and PostgreSQL alike, run by kysely's Migrator when the store opens
// (docs/architecture.md, State). Forward-only and append-only: a released migration is never edited.
// Each migration also writes the version marker today's and older releases read (meta.schema_version in a
// sqlite file, schema_migrations in PostgreSQL), so an older offersync refuses a db this one migrated.
// A db made before the Migrator existed is known by that marker alone: its migrations are recorded as run.
import { type Kysely, type Migration, Migrator, type MigrationResultSet, sql } from 'kysely';
import type { StateDialectName } from './state-dialect-name.ts';

export interface StateMigration {
  /** 1, 2, 3...: the order they run in (kysely's name of each); `marker` is what an older offersync reads. */
  readonly version: number;
  readonly name: string;
  /**
   * The marker this migration leaves, by dialect: PostgreSQL's first release held the sqlite's first two, and
   * its 'sold-counts' was its 2.
   */
  readonly marker: Readonly<Record<StateDialectName, number>>;
  readonly sql: Readonly<Record<StateDialectName, readonly string[]>>;
}

const SQLITE_INITIAL = [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)`,
  `CREATE TABLE offers (
    kind TEXT NOT NULL CHECK (kind IN ('account', 'item', 'topup')),
    external_id TEXT NOT NULL,
    remote_id INTEGER,
    last_applied TEXT,
    credentials_hmac TEXT,
    image_hashes TEXT NOT NULL DEFAULT '[]',
    content_hash TEXT,
    remote_status TEXT,
    remote_updated_at INTEGER,
    managed INTEGER NOT NULL DEFAULT 0 CHECK (managed IN (0, 1)),
    source_file TEXT,
    lossy_fields TEXT NOT NULL DEFAULT '[]',
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (kind, external_id)
  ) WITHOUT ROWID`,
  `CREATE INDEX offers_remote_id ON offers (remote_id)`,
  `CREATE TABLE images (
    sha256 TEXT PRIMARY KEY NOT NULL, remote_id INTEGER NOT NULL, url TEXT, uploaded_at INTEGER NOT NULL)`,
  `CREATE TABLE runs (
    id TEXT PRIMARY KEY NOT NULL, command TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER,
    outcome TEXT, counts TEXT NOT NULL DEFAULT '{}')`,
  `CREATE INDEX runs_started_at ON runs (started_at)`,
  `CREATE TABLE journal (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    op TEXT NOT NULL,
    kind TEXT NOT NULL,
    keys TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'done', 'failed')),
    error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE INDEX journal_state ON journal (state)`,
  `CREATE TABLE capabilities (
    name TEXT PRIMARY KEY NOT NULL, usable INTEGER NOT NULL CHECK (usable IN (0, 1)), detail TEXT,
    learnt_at INTEGER NOT NULL)`,
  `CREATE TABLE lease (
    id INTEGER PRIMARY KEY CHECK (id = 1), holder TEXT NOT NULL, pid INTEGER NOT NULL, hostname TEXT NOT NULL,
    expires_at INTEGER NOT NULL)`,
];

const POSTGRES_INITIAL = [
  `CREATE TABLE IF NOT EXISTS schema_migrations
    (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
  `CREATE TABLE offers (
    seller TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('account', 'item', 'topup')),
    external_id TEXT NOT NULL,
    remote_id BIGINT,
    last_applied TEXT,
    credentials_hmac TEXT,
    image_hashes TEXT NOT NULL DEFAULT '[]',
    content_hash TEXT,
    remote_status TEXT,
    remote_updated_at BIGINT,
    managed SMALLINT NOT NULL DEFAULT 0 CHECK (managed IN (0, 1)),
    source_file TEXT,
    lossy_fields TEXT NOT NULL DEFAULT '[]',
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (seller, kind, external_id)
  )`,
  `CREATE INDEX offers_remote_id ON offers (seller, remote_id)`,
  `CREATE TABLE images (
    seller TEXT NOT NULL, sha256 TEXT NOT NULL, remote_id BIGINT NOT NULL, url TEXT, uploaded_at BIGINT NOT NULL,
    PRIMARY KEY (seller, sha256))`,
  `CREATE TABLE runs (
    seller TEXT NOT NULL, id TEXT NOT NULL, command TEXT NOT NULL, started_at BIGINT NOT NULL, ended_at BIGINT,
    outcome TEXT, counts TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (seller, id))`,
  `CREATE INDEX runs_started_at ON runs (seller, started_at)`,
  `CREATE TABLE journal (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    seller TEXT NOT NULL,
    run_id TEXT NOT NULL,
    op TEXT NOT NULL,
    kind TEXT NOT NULL,
    keys TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'done', 'failed')),
    error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
  `CREATE INDEX journal_state ON journal (seller, state)`,
  `CREATE TABLE capabilities (
    seller TEXT NOT NULL, name TEXT NOT NULL, usable SMALLINT NOT NULL CHECK (usable IN (0, 1)), detail TEXT,
    learnt_at BIGINT NOT NULL, PRIMARY KEY (seller, name))`,
  `CREATE TABLE seller_meta (seller TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (seller, key))`,
  // One writer per seller. epoch grows each time the lease changes hands: a write batch carries the epoch it
  // was started under and is refused once another replica holds the seller (fencing).
  `CREATE TABLE seller_leases (
    seller TEXT PRIMARY KEY, holder TEXT NOT NULL, pid INTEGER NOT NULL, hostname TEXT NOT NULL,
    scope TEXT NOT NULL DEFAULT '', epoch BIGINT NOT NULL, expires_at BIGINT NOT NULL)`,
  // Live daemon replicas, for the fair share (sellers / live replicas, rounded up).
  `CREATE TABLE replicas (
    holder TEXT PRIMARY KEY, pid INTEGER NOT NULL, hostname TEXT NOT NULL, started_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL)`,
];

/**
 * The sqlite file takes PostgreSQL's shape, so that one store writes the same SQL to both: a seller column
 * first in every key ('' in a file, which holds one seller), seller_meta and seller_leases (with the epoch
 * that fences writes). The old meta table keeps only the version marker, for older releases to read.
 */
const SQLITE_ONE_SCHEMA = [
  `CREATE TABLE offers_next (
    seller TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('account', 'item', 'topup')),
    external_id TEXT NOT NULL,
    remote_id INTEGER,
    last_applied TEXT,
    credentials_hmac TEXT,
    image_hashes TEXT NOT NULL DEFAULT '[]',
    content_hash TEXT,
    remote_status TEXT,
    remote_updated_at INTEGER,
    managed INTEGER NOT NULL DEFAULT 0 CHECK (managed IN (0, 1)),
    source_file TEXT,
    lossy_fields TEXT NOT NULL DEFAULT '[]',
    sold_count INTEGER,
    sold_count_at_send INTEGER,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (seller, kind, external_id)
  ) WITHOUT ROWID`,
  `INSERT INTO offers_next SELECT '', kind, external_id, remote_id, last_applied, credentials_hmac, image_hashes,
    content_hash, remote_status, remote_updated_at, managed, source_file, lossy_fields, sold_count,
    sold_count_at_send, updated_at FROM offers`,
  `DROP TABLE offers`,
  `ALTER TABLE offers_next RENAME TO offers`,
  `CREATE INDEX offers_remote_id ON offers (seller, remote_id)`,
  `CREATE TABLE images_next (
    seller TEXT NOT NULL, sha256 TEXT NOT NULL, remote_id INTEGER NOT NULL, url TEXT, uploaded_at INTEGER NOT NULL,
    PRIMARY KEY (seller, sha256))`,
  `INSERT INTO images_next SELECT '', sha256, remote_id, url, uploaded_at FROM images`,
  `DROP TABLE images`,
  `ALTER TABLE images_next RENAME TO images`,
  `CREATE TABLE runs_next (
    seller TEXT NOT NULL, id TEXT NOT NULL, command TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER,
    outcome TEXT, counts TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (seller, id))`,
  `INSERT INTO runs_next SELECT '', id, command, started_at, ended_at, outcome, counts FROM runs`,
  `DROP TABLE runs`,
  `ALTER TABLE runs_next RENAME TO runs`,
  `CREATE INDEX runs_started_at ON runs (seller, started_at)`,
  // The journal keeps its rows and its AUTOINCREMENT counter: ids never go back.
  `ALTER TABLE journal ADD COLUMN seller TEXT NOT NULL DEFAULT ''`,
  `DROP INDEX journal_state`,
  `CREATE INDEX journal_state ON journal (seller, state)`,
  `CREATE TABLE capabilities_next (
    seller TEXT NOT NULL, name TEXT NOT NULL, usable INTEGER NOT NULL CHECK (usable IN (0, 1)), detail TEXT,
    learnt_at INTEGER NOT NULL, PRIMARY KEY (seller, name))`,
  `INSERT INTO capabilities_next SELECT '', name, usable, detail, learnt_at FROM capabilities`,
  `DROP TABLE capabilities`,
  `ALTER TABLE capabilities_next RENAME TO capabilities`,
  `CREATE TABLE seller_meta (seller TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (seller, key))`,
  `INSERT INTO seller_meta SELECT '', key, value FROM meta WHERE key <> 'schema_version'`,
  `DELETE FROM meta WHERE key <> 'schema_version'`,
  `CREATE TABLE seller_leases (
    seller TEXT PRIMARY KEY, holder TEXT NOT NULL, pid INTEGER NOT NULL, hostname TEXT NOT NULL,
    scope TEXT NOT NULL DEFAULT '', epoch INTEGER NOT NULL, expires_at INTEGER NOT NULL)`,
  `INSERT INTO seller_leases SELECT '', holder, pid, hostname, scope, 1, expires_at FROM lease`,
  `DROP TABLE lease`,
];

/**
 * PostgreSQL sorts text by the database's locale unless told otherwise; offersync reads keys in byte order
 * (as SQLite does), which these columns now use by default, so no query names a collation.
 */
const POSTGRES_ONE_SCHEMA = [
  `ALTER TABLE offers ALTER COLUMN kind TYPE TEXT COLLATE "C", ALTER COLUMN external_id TYPE TEXT COLLATE "C"`,
  `ALTER TABLE images ALTER COLUMN sha256 TYPE TEXT COLLATE "C"`,
  `ALTER TABLE runs ALTER COLUMN id TYPE TEXT COLLATE "C"`,
  `ALTER TABLE capabilities ALTER COLUMN name TYPE TEXT COLLATE "C"`,
];

/**
 * Each offer's story (`offersync history`, the status page's offer page): what offersync sent and what the
 * marketplace answered, and what it saw the marketplace do, one row per event. Kept apart from runs and the
 * journal, which are pruned by run: an offer keeps its newest events whatever `keepRuns` drops (the store bounds
 * them per offer, see OFFER_EVENTS_KEPT). Read newest first by offer: the index leads with external_id, so the
 * kinds an external_id has are found there too. The offers get their title, which the status page searches.
 */
const SQLITE_OFFER_EVENTS = [
  `CREATE TABLE offer_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    seller TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('account', 'item', 'topup')),
    external_id TEXT NOT NULL,
    run_id TEXT,
    at INTEGER NOT NULL,
    event TEXT NOT NULL,
    route TEXT,
    changes TEXT NOT NULL DEFAULT '[]',
    quantity INTEGER,
    detail TEXT,
    answer TEXT,
    answer_status INTEGER,
    answer_message TEXT
  )`,
  `CREATE INDEX offer_events_offer ON offer_events (seller, external_id, kind, id)`,
  `ALTER TABLE offers ADD COLUMN title TEXT`,
  `UPDATE offers
    SET title = coalesce(json_extract(last_applied, '$.title'), json_extract(last_applied, '$.offer_title'))
    WHERE last_applied IS NOT NULL AND json_valid(last_applied)`,
];

const POSTGRES_OFFER_EVENTS = [
  `CREATE TABLE offer_events (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    seller TEXT NOT NULL,
    kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('account', 'item', 'topup')),
    external_id TEXT COLLATE "C" NOT NULL,
    run_id TEXT,
    at BIGINT NOT NULL,
    event TEXT NOT NULL,
    route TEXT,
    changes TEXT NOT NULL DEFAULT '[]',
    quantity BIGINT,
    detail TEXT,
    answer TEXT,
    answer_status INTEGER,
    answer_message TEXT
  )`,
  `CREATE INDEX offer_events_offer ON offer_events (seller, external_id, kind, id)`,
  `ALTER TABLE offers ADD COLUMN IF NOT EXISTS title TEXT`,
  `UPDATE offers SET title = coalesce(last_applied::jsonb ->> 'title', last_applied::jsonb ->> 'offer_title')
    WHERE last_applied IS NOT NULL`,
];

/**
 * Sellers added at run time (`offersync sellers add`) and the sales of every seller, for replicas that share no
 * disk. A seller row holds where its API key is (a file path or a variable's name), never the key. A removed
 * seller keeps its row, marked removed, so that a config file's `sellers:` list does not bring it back. A sale
 * keeps its sold.jsonl line whole (`entry`), so `offersync sales` writes it back as it was; the columns beside it
 * are what the queries select by, and its sale_key (sold-log.ts) keeps each sale once.
 */
const SELLERS_AND_SALES = (dialect: StateDialectName): readonly string[] => {
  const time = dialect === 'sqlite' ? 'INTEGER' : 'BIGINT';
  const id =
    dialect === 'sqlite'
      ? 'id INTEGER PRIMARY KEY AUTOINCREMENT'
      : 'id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY';
  return [
    `CREATE TABLE sellers (
      seller TEXT PRIMARY KEY NOT NULL,
      catalogue TEXT NOT NULL,
      api_key_file TEXT,
      api_key_env TEXT,
      overrides TEXT NOT NULL DEFAULT '{}',
      origin TEXT NOT NULL CHECK (origin IN ('config', 'command')),
      added_at ${time} NOT NULL,
      updated_at ${time} NOT NULL,
      removed_at ${time})`,
    `CREATE TABLE sales (
      ${id},
      seller TEXT NOT NULL,
      kind TEXT NOT NULL,
      external_id TEXT NOT NULL,
      seen_at ${time} NOT NULL,
      sale_key TEXT,
      entry TEXT NOT NULL)`,
    `CREATE INDEX sales_seen_at ON sales (seller, seen_at)`,
    // A sale told by two runs (a run that crashed before its counts were saved) is kept once.
    `CREATE UNIQUE INDEX sales_sale_key ON sales (seller, sale_key)`,
  ];
};

export const MIGRATIONS: readonly StateMigration[] = [
  {
    version: 1,
    name: 'initial',
    marker: { sqlite: 1, postgres: 1 },
    sql: { sqlite: SQLITE_INITIAL, postgres: POSTGRES_INITIAL },
  },
  {
    version: 2,
    name: 'lease-scope',
    // Which pid namespace on which boot the holder's pid belongs to: only there does "that pid is gone" prove
    // the holder dead. PostgreSQL's first release had it already.
    marker: { sqlite: 2, postgres: 1 },
    sql: { sqlite: [`ALTER TABLE lease ADD COLUMN scope TEXT NOT NULL DEFAULT ''`], postgres: [] },
  },
  {
    version: 3,
    name: 'sold-counts',
    // Items and top-ups sell in units: the count last seen tells a sale, the count when the stock was last sent
    // tells a stock lowered by sales from one edited on the website (docs/architecture.md, Sales). Released by
    // the hand-written migrators as sqlite's 3 and PostgreSQL's 2: a db of that release is adopted at its marker.
    marker: { sqlite: 3, postgres: 2 },
    sql: {
      sqlite: [
        `ALTER TABLE offers ADD COLUMN sold_count INTEGER`,
        `ALTER TABLE offers ADD COLUMN sold_count_at_send INTEGER`,
      ],
      postgres: [
        `ALTER TABLE offers ADD COLUMN IF NOT EXISTS sold_count BIGINT`,
        `ALTER TABLE offers ADD COLUMN IF NOT EXISTS sold_count_at_send BIGINT`,
      ],
    },
  },
  {
    version: 4,
    name: 'one-schema',
    marker: { sqlite: 4, postgres: 3 },
    sql: { sqlite: SQLITE_ONE_SCHEMA, postgres: POSTGRES_ONE_SCHEMA },
  },
  {
    version: 5,
    name: 'offer-events',
    marker: { sqlite: 5, postgres: 4 },
    sql: { sqlite: SQLITE_OFFER_EVENTS, postgres: POSTGRES_OFFER_EVENTS },
  },
  {
    version: 6,
    name: 'sellers-and-sales',
    marker: { sqlite: 6, postgres: 5 },
    sql: { sqlite: SELLERS_AND_SALES('sqlite'), postgres: SELLERS_AND_SALES('postgres') },
  },
  {
    version: 7,
    name: 'login-fingerprints',
    // Which physical account each account offer sells, as a keyed HMAC of its login (never the login): one
    // account is listed once and never relisted once sold (docs/architecture.md, One game account, one live
    // offer). Null for offers sent before: filled by the next send.
    marker: { sqlite: 7, postgres: 6 },
    sql: {
      sqlite: [`ALTER TABLE offers ADD COLUMN login_fingerprint TEXT`],
      postgres: [`ALTER TABLE offers ADD COLUMN IF NOT EXISTS login_fingerprint TEXT`],
    },
  },
];

export const SCHEMA_VERSION_KEY = 'schema_version';

/** The Migrator's own tables (the names are kysely's defaults with our prefix). */
const MIGRATION_TABLE = 'state_migration';
const MIGRATION_LOCK_TABLE = 'state_migration_lock';

/** The advisory lock of every PostgreSQL migrator offersync ever ran: old and new replicas exclude each other. */
const POSTGRES_MIGRATION_LOCK = 7_301_215_412;

/** The db was written by a newer offersync: opening it could corrupt what that version relies on. */
export class StateSchemaTooNewError extends Error {
  override readonly name = 'StateSchemaTooNewError';
  constructor(
    /** The file, or the URL without its password. */
    readonly path: string,
    readonly found: number,
    readonly known: number,
    dialect: StateDialectName,
    /** Migrations its Migrator table records that this release does not have. */
    readonly unknownMigrations: readonly string[] = [],
  ) {
    const todo =
      dialect === 'sqlite'
        ? 'upgrade offersync, or point state.path at another file'
        : 'upgrade offersync on every replica, or point state.url at another database';
    super(
      unknownMigrations.length > 0
        ? `state db ${path} records ${unknownMigrations.length === 1 ? 'a migration' : 'migrations'} this ` +
            `offersync does not have (${unknownMigrations.join(', ')}): a newer offersync has written to it, and ` +
            `this one could corrupt what that one relies on. Nothing was written to it. To go on, ${todo}.`
        : `state db ${path} has schema version ${found}, newer than this offersync knows (${known}); ${todo}`,
    );
  }
}

/** One line per migration, from the Migrator's result set. */
export interface MigrationResult {
  readonly version: number;
  readonly name: string;
  readonly status: 'applied' | 'already-applied';
}

/**
 * The marker the newest migration leaves in a db of this dialect: what a db's own marker is compared with. Not the
 * newest version: PostgreSQL's markers run one behind (its 'lease-scope' left none), so a PostgreSQL db a newer
 * release migrated can show this release's newest version as its marker.
 */
export function latestMarker(dialect: StateDialectName, migrations: readonly StateMigration[] = MIGRATIONS): number {
  return migrations.reduce((max, m) => Math.max(max, m.marker[dialect]), 0);
}

/** kysely's name of a migration: sorts in version order. */
function migrationName(m: StateMigration): string {
  return `${String(m.version).padStart(4, '0')}-${m.name}`;
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
type AnyDb = Kysely<any>;

/** The version marker older releases read: 0 for a db that has none (a new one). */
export async function schemaVersion(db: AnyDb, dialect: StateDialectName): Promise<number> {
  if (dialect === 'sqlite') {
    const t = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE name = 'meta'`.execute(db);
    // count(*), to_regclass and max each answer exactly one row.
    if (Number(t.rows[0]!.n) === 0) return 0;
    const r = await sql<{ value: string }>`SELECT value FROM meta WHERE key = ${SCHEMA_VERSION_KEY}`.execute(db);
    return Number(r.rows[0]?.value ?? 0);
  }
  const t = await sql<{ t: string | null }>`SELECT to_regclass('schema_migrations')::text AS t`.execute(db);
  if (t.rows[0]!.t == null) return 0;
  const r = await sql<{ v: number | null }>`SELECT max(version) AS v FROM schema_migrations`.execute(db);
  return Number(r.rows[0]!.v ?? 0);
}

async function writeMarker(db: AnyDb, dialect: StateDialectName, m: StateMigration): Promise<void> {
  const marker = m.marker[dialect];
  if (dialect === 'sqlite') {
    await sql`INSERT INTO meta (key, value) VALUES (${SCHEMA_VERSION_KEY}, ${String(marker)})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`.execute(db);
    return;
  }
  await sql`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${marker}, ${m.name}, ${Date.now()})
    ON CONFLICT (version) DO NOTHING`.execute(db);
}

/**
 * The version marker, read in the caller's transaction, on PostgreSQL under the advisory lock every offersync's
 * migrator takes. Refuses a db a newer offersync wrote.
 */
async function lockedVersion(db: AnyDb, dialect: StateDialectName, where: string, known: number): Promise<number> {
  if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(${POSTGRES_MIGRATION_LOCK})`.execute(db);
  const found = await schemaVersion(db, dialect);
  if (found > known) throw new StateSchemaTooNewError(where, found, known, dialect);
  return found;
}

function provider(dialect: StateDialectName, where: string, migrations: readonly StateMigration[]) {
  const known = latestMarker(dialect, migrations);
  const all: Record<string, Migration> = {};
  for (const m of migrations)
    all[migrationName(m)] = {
      async up(db) {
        // A newer offersync may have migrated since this one looked: stop rather than run over its schema.
        await lockedVersion(db, dialect, where, known);
        for (const statement of m.sql[dialect]) await sql.raw(statement).execute(db);
        await writeMarker(db, dialect, m);
      },
    };
  return { getMigrations: async () => all };
}

/**
 * Brings the db to the newest schema with kysely's Migrator, in one transaction (both dialects have
 * transactional DDL): a crash leaves it as it was or migrated, never in between. Two processes opening a new db
 * migrate it once: SQLite's write lock and PostgreSQL's advisory lock (the Migrator's) serialise them.
 */
export async function migrateState(
  db: AnyDb,
  dialect: StateDialectName,
  where: string,
  migrations: readonly StateMigration[] = MIGRATIONS,
): Promise<MigrationResult[]> {
  const known = latestMarker(dialect, migrations);
  // Up to date (every open but the first after an upgrade): read only. A write lock here would also stall
  // another connection of this process to a sqlite file, whose wait for it blocks the thread.
  if (await upToDate(db, dialect, where, migrations))
    return migrations.map((m) => ({ version: m.version, name: m.name, status: 'already-applied' }));
  await adoptOlderRelease(db, dialect, where, migrations);
  const migrator = new Migrator({
    db,
    provider: provider(dialect, where, migrations),
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  // kysely runs PostgreSQL's migrations in a transaction of its own, not SQLite's (it does not count on
  // transactional DDL there, which SQLite has): one write transaction around them all, taken at once.
  if (dialect === 'sqlite') await sql`BEGIN IMMEDIATE`.execute(db);
  let set: MigrationResultSet;
  try {
    set = await migrator.migrateToLatest();
  } finally {
    if (dialect === 'sqlite') await sql.raw(set! && !set.error ? 'COMMIT' : 'ROLLBACK').execute(db);
  }
  if (set.error) {
    if (set.error instanceof StateSchemaTooNewError) throw set.error;
    const failed = set.results?.find((r) => r.status === 'Error')?.migrationName;
    const cause = set.error instanceof Error ? set.error.message : String(set.error);
    // A name the Migrator does not know is a migration of a newer release.
    const newer = /previously executed migration .* is missing/.test(cause);
    if (newer) throw new StateSchemaTooNewError(where, await schemaVersion(db, dialect), known, dialect);
    throw new Error(`state db ${where}: migration ${failed ?? '(none)'} failed, nothing changed: ${cause}`, {
      cause: set.error,
    });
  }
  const applied = new Set((set.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName));
  return migrations.map((m) => ({
    version: m.version,
    name: m.name,
    status: applied.has(migrationName(m)) ? 'applied' : 'already-applied',
  }));
}

/**
 * The marker is the newest this release writes and the Migrator's table names every migration. Refuses, before
 * anything is written, a db whose table names a migration this release lacks: a newer release's, whatever its
 * marker says (the Migrator itself would only notice it when it had something to run).
 */
async function upToDate(
  db: AnyDb,
  dialect: StateDialectName,
  where: string,
  migrations: readonly StateMigration[],
): Promise<boolean> {
  const found = await schemaVersion(db, dialect);
  // kysely's introspection hides only its default table names, so ours are listed without asking.
  const tables = await db.introspection.getTables();
  if (!tables.some((t) => t.name === MIGRATION_TABLE)) return false;
  const rows = await db.selectFrom(MIGRATION_TABLE).select('name').execute();
  const ran = new Set(rows.map((r) => String(r.name)));
  const known = new Set(migrations.map(migrationName));
  const unknown = [...ran].filter((n) => !known.has(n)).sort();
  const newest = latestMarker(dialect, migrations);
  // A newer marker says it in versions; at this release's marker, only the names tell.
  if (unknown.length > 0)
    throw new StateSchemaTooNewError(where, found, newest, dialect, found > newest ? [] : unknown);
  if (found !== newest) return false;
  return migrations.every((m) => ran.has(migrationName(m)));
}

/**
 * A db an offersync before the Migrator made has only the version marker: its migrations are recorded in the
 * Migrator's table as run, so that only the newer ones run. Refuses a db a newer offersync wrote.
 */
async function adoptOlderRelease(
  db: AnyDb,
  dialect: StateDialectName,
  where: string,
  migrations: readonly StateMigration[],
): Promise<void> {
  const known = latestMarker(dialect, migrations);
  await db.transaction().execute(async (trx) => {
    const found = await lockedVersion(trx, dialect, where, known);
    if (found === 0) return;
    await trx.schema
      .createTable(MIGRATION_TABLE)
      .ifNotExists()
      .addColumn('name', 'varchar(255)', (c) => c.notNull().primaryKey())
      .addColumn('timestamp', 'varchar(255)', (c) => c.notNull())
      .execute();
    const at = new Date().toISOString();
    for (const m of migrations)
      if (m.marker[dialect] <= found)
        await trx
          .insertInto(MIGRATION_TABLE)
          .values({ name: migrationName(m), timestamp: at })
          .onConflict((oc) => oc.column('name').doNothing())
          .execute();
  });
}
