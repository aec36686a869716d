// Versioned, forward-only migrations, run when the state db opens. Each runs in its own transaction with
// the version bump, so a crash leaves the db at the previous version or the next, never in between.
// Append only: a released migration is never edited, a change is a new one.
import type BetterSqlite3 from 'better-sqlite3';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE offers (
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
      ) WITHOUT ROWID;
      CREATE INDEX offers_remote_id ON offers (remote_id);

      CREATE TABLE images (
        sha256 TEXT PRIMARY KEY NOT NULL,
        remote_id INTEGER NOT NULL,
        url TEXT,
        uploaded_at INTEGER NOT NULL
      );

      CREATE TABLE runs (
        id TEXT PRIMARY KEY NOT NULL,
        command TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        outcome TEXT,
        counts TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX runs_started_at ON runs (started_at);

      CREATE TABLE journal (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL,
        op TEXT NOT NULL,
        kind TEXT NOT NULL,
        keys TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'done', 'failed')),
        error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX journal_state ON journal (state);

      CREATE TABLE capabilities (
        name TEXT PRIMARY KEY NOT NULL,
        usable INTEGER NOT NULL CHECK (usable IN (0, 1)),
        detail TEXT,
        learnt_at INTEGER NOT NULL
      );

      CREATE TABLE lease (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        holder TEXT NOT NULL,
        pid INTEGER NOT NULL,
        hostname TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'lease-scope',
    // Which pid namespace on which boot the holder's pid belongs to: only there does "that pid is gone"
    // prove the holder dead, so only there is its lease taken over before it expires.
    sql: `ALTER TABLE lease ADD COLUMN scope TEXT NOT NULL DEFAULT '';`,
  },
  {
    version: 3,
    name: 'sold-counts',
    // Items and top-ups sell in units: the count last seen tells a sale, the count when the stock was last sent
    // tells a stock lowered by sales from one edited on the website (docs/architecture.md, Sales).
    sql: `
      ALTER TABLE offers ADD COLUMN sold_count INTEGER;
      ALTER TABLE offers ADD COLUMN sold_count_at_send INTEGER;
    `,
  },
];

export const SCHEMA_VERSION_KEY = 'schema_version';

/** The db was written by a newer offersync: opening it could corrupt what that version relies on. */
export class StateSchemaTooNewError extends Error {
  override readonly name = 'StateSchemaTooNewError';
  constructor(
    readonly path: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `state db ${path} has schema version ${found}, newer than this offersync knows (${known}); ` +
        'upgrade offersync, or point state.path at another file',
    );
  }
}

/** One line per migration, like kysely's migrator result set. */
export interface MigrationResult {
  readonly version: number;
  readonly name: string;
  readonly status: 'applied' | 'already-applied';
}

/**
 * Brings the db to the newest schema. The meta table is created outside the migrations: it holds the
 * version itself. BEGIN IMMEDIATE so that two processes opening a fresh db do not both migrate it.
 */
export function migrate(
  db: BetterSqlite3.Database,
  path: string,
  migrations: readonly Migration[] = MIGRATIONS,
): MigrationResult[] {
  db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)');
  const readVersion = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
  const writeVersion = db.prepare<[string, string]>(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const current = () => Number(readVersion.get(SCHEMA_VERSION_KEY)?.value ?? 0);

  const found = current();
  if (found > known) throw new StateSchemaTooNewError(path, found, known);

  const results: MigrationResult[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    const status = db
      .transaction((): MigrationResult['status'] => {
        // Read again inside the lock: another process may have migrated since.
        const now = current();
        if (now > known) throw new StateSchemaTooNewError(path, now, known);
        if (now >= m.version) return 'already-applied';
        db.exec(m.sql);
        writeVersion.run(SCHEMA_VERSION_KEY, String(m.version));
        return 'applied';
      })
      .immediate();
    results.push({ version: m.version, name: m.name, status });
  }
  return results;
}

export function latestSchemaVersion(migrations: readonly Migration[] = MIGRATIONS): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}
