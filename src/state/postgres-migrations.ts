// The PostgreSQL schema, versioned and forward-only like the sqlite one (migrations.ts), with a `seller`
// column first in every key: one database holds the state of many sellers. Each migration runs in its own
// transaction under an advisory lock, so replicas starting together migrate once.
import type { MigrationResult } from './migrations.ts';
import type { SyncPostgresConnection } from './sync-postgres-connection.ts';

export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE offers (
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
      );
      CREATE INDEX offers_remote_id ON offers (seller, remote_id);

      CREATE TABLE images (
        seller TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        remote_id BIGINT NOT NULL,
        url TEXT,
        uploaded_at BIGINT NOT NULL,
        PRIMARY KEY (seller, sha256)
      );

      CREATE TABLE runs (
        seller TEXT NOT NULL,
        id TEXT NOT NULL,
        command TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        ended_at BIGINT,
        outcome TEXT,
        counts TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (seller, id)
      );
      CREATE INDEX runs_started_at ON runs (seller, started_at);

      CREATE TABLE journal (
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
      );
      CREATE INDEX journal_state ON journal (seller, state);

      CREATE TABLE capabilities (
        seller TEXT NOT NULL,
        name TEXT NOT NULL,
        usable SMALLINT NOT NULL CHECK (usable IN (0, 1)),
        detail TEXT,
        learnt_at BIGINT NOT NULL,
        PRIMARY KEY (seller, name)
      );

      CREATE TABLE seller_meta (
        seller TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (seller, key)
      );

      -- One writer per seller. epoch grows each time the lease changes hands: a write batch carries the
      -- epoch it was started under and is refused once another replica holds the seller (fencing).
      CREATE TABLE seller_leases (
        seller TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        pid INTEGER NOT NULL,
        hostname TEXT NOT NULL,
        scope TEXT NOT NULL DEFAULT '',
        epoch BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );

      -- Live daemon replicas, for the fair share (sellers / live replicas, rounded up).
      CREATE TABLE replicas (
        holder TEXT PRIMARY KEY,
        pid INTEGER NOT NULL,
        hostname TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'sold-counts',
    // As sqlite's 'sold-counts' (migrations.ts).
    sql: `
      ALTER TABLE offers ADD COLUMN sold_count BIGINT;
      ALTER TABLE offers ADD COLUMN sold_count_at_send BIGINT;
    `,
  },
];

/** The db was written by a newer offersync. */
export class PostgresSchemaTooNewError extends Error {
  override readonly name = 'PostgresSchemaTooNewError';
  constructor(
    readonly where: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `state db ${where} has schema version ${found}, newer than this offersync knows (${known}); ` +
        'upgrade offersync on every replica, or point state.url at another database',
    );
  }
}

/** An arbitrary constant: the advisory lock every offersync migrator takes. */
const MIGRATION_LOCK = 7_301_215_412;

export function migratePostgres(
  conn: SyncPostgresConnection,
  where: string,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): MigrationResult[] {
  // Under the lock too: two CREATE TABLE IF NOT EXISTS at once can both try, and one fails on pg_type.
  conn.query('BEGIN');
  try {
    conn.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    conn.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations ' +
        '(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    );
    conn.query('COMMIT');
  } catch (err) {
    conn.query('ROLLBACK');
    throw err;
  }
  const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const current = () =>
    Number(conn.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations').rows[0]?.v ?? 0);
  const results: MigrationResult[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    conn.query('BEGIN');
    try {
      conn.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const now = current();
      if (now > known) throw new PostgresSchemaTooNewError(where, now, known);
      let status: MigrationResult['status'] = 'already-applied';
      if (now < m.version) {
        conn.query(m.sql);
        conn.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          Date.now(),
        ]);
        status = 'applied';
      }
      conn.query('COMMIT');
      results.push({ version: m.version, name: m.name, status });
    } catch (err) {
      conn.query('ROLLBACK');
      throw err;
    }
  }
  if (migrations.length === 0 || results.length === 0) {
    const now = current();
    if (now > known) throw new PostgresSchemaTooNewError(where, now, known);
  }
  return results;
}
