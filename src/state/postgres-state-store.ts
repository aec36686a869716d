// The state of one seller in PostgreSQL: the same StateStore as the sqlite file, with every row keyed by
// seller, so one database serves many sellers and many replicas. Synchronous through SyncPostgresConnection.
import { silentLogger, type Logger } from '../log/logger.ts';
import { type OfferView, offerViewOf } from './offer-view.ts';
import type { MigrationResult } from './migrations.ts';
import { SCHEMA_VERSION_KEY } from './migrations.ts';
import { migratePostgres } from './postgres-migrations.ts';
import type {
  CapabilityRecord,
  ImageRecord,
  JournalEntry,
  JournalOp,
  JournalState,
  LeaseClaim,
  OfferRecord,
  RunRecord,
  StateKind,
  WriterLease,
} from './records.ts';
import {
  applyOfferPatch,
  offerDefaults,
  OFFER_COLUMNS,
  OFFER_PATCH_COLUMNS,
  toCapabilityRecord,
  toImageRecord,
  toJournalEntry,
  toOfferRecord,
  toRunRecord,
  toWriterLease,
  type OfferPatchField,
} from './rows.ts';
import type { Selectable } from 'kysely';
import type { CapabilitiesTable, ImagesTable, JournalTable, LeaseTable, OffersTable, RunsTable } from './schema.ts';

type JournalRow = Selectable<JournalTable>;
import type { LeaseAttempt, OfferRecordPatch, StateStore } from './state-store.ts';
import { redactUrl, SyncPostgresConnection, type SyncPostgresOptions } from './sync-postgres-connection.ts';

/** The lease a write batch must still hold: checked in the same statement that journals the batch. */
export interface LeaseFence {
  readonly holder: string;
  readonly epoch: number;
}

/** A write was refused because another replica holds this seller now. Nothing was sent. */
export class FencedWriteError extends Error {
  override readonly name = 'FencedWriteError';
  constructor(
    readonly seller: string,
    readonly holder: string,
  ) {
    super(
      `seller ${seller}: this replica (${holder}) no longer holds the seller's lease; the write was not sent ` +
        '(another replica took the seller over)',
    );
  }
}

export interface OpenPostgresStateStoreOptions {
  readonly logger?: Logger;
  /** Epoch ms for the rows' timestamps; tests pass a fake. Default Date.now. */
  readonly now?: () => number;
  /** Share one connection between the stores of many sellers in one process (the caller closes it). */
  readonly connection?: SyncPostgresConnection;
  /** Runs kept by pruneHistory, with their settled journal entries. Default 200. */
  readonly keepRuns?: number;
}

const SELLER_ID = /^[a-z0-9-]+$/;

/** Opens a connection and brings the schema up to date; one per process serves every seller. */
export function openPostgresConnection(
  opts: SyncPostgresOptions,
  logger: Logger = silentLogger,
): { connection: SyncPostgresConnection; migrations: MigrationResult[] } {
  const connection = new SyncPostgresConnection(opts);
  try {
    const migrations = migratePostgres(connection, redactUrl(opts.url));
    for (const m of migrations)
      if (m.status === 'applied')
        logger.info({ component: 'state', version: m.version, name: m.name }, 'state db migrated');
    return { connection, migrations };
  } catch (err) {
    connection.close();
    throw err;
  }
}

export function openPostgresStateStore(
  seller: string,
  conn: SyncPostgresOptions,
  opts: OpenPostgresStateStoreOptions = {},
): PostgresStateStore {
  if (opts.connection) return new PostgresStateStore(seller, opts.connection, false, opts);
  const { connection } = openPostgresConnection(conn, opts.logger);
  return new PostgresStateStore(seller, connection, true, opts);
}

/** Epoch ms by the database's clock: replicas on different machines judge leases by this one clock. */
export const DB_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/** Rows per INSERT in upsertOffers: 13 parameters each, well under PostgreSQL's 65,535. */
const UPSERT_BATCH = 1000;

/** Tries of acquireLease when the lease keeps being released between its two statements. */
const LEASE_ATTEMPTS = 5;

const SELECT_OFFER = `SELECT ${OFFER_COLUMNS.join(', ')} FROM offers`;

export class PostgresStateStore implements StateStore {
  readonly seller: string;
  readonly #conn: SyncPostgresConnection;
  readonly #ownsConnection: boolean;
  readonly #now: () => number;
  readonly #upserts = new Map<string, string>();
  readonly #keepRuns: number;
  #depth = 0;
  #fence: LeaseFence | null = null;

  constructor(
    seller: string,
    conn: SyncPostgresConnection,
    ownsConnection: boolean,
    opts: OpenPostgresStateStoreOptions,
  ) {
    if (!SELLER_ID.test(seller)) throw new Error(`seller id "${seller}": expected lowercase letters, digits and -`);
    this.seller = seller;
    this.#conn = conn;
    this.#ownsConnection = ownsConnection;
    this.#now = opts.now ?? Date.now;
    const keepRuns = opts.keepRuns ?? 200;
    if (!Number.isSafeInteger(keepRuns) || keepRuns < 1)
      throw new TypeError(`state db: keepRuns must be a whole number of at least 1, got ${String(opts.keepRuns)}`);
    this.#keepRuns = keepRuns;
  }

  #q<R>(sql: string, params: readonly unknown[] = []) {
    return this.#conn.query<R>(sql, [this.seller, ...params]);
  }

  /**
   * From now on every journalBegin (every write batch is journaled before it is sent) checks in the same
   * statement that `fence` still holds this seller's lease, and throws FencedWriteError when it does not.
   */
  setFence(fence: LeaseFence | null): void {
    this.#fence = fence;
  }

  // offers

  async getOffer(kind: StateKind, externalId: string): Promise<OfferRecord | undefined> {
    const row = this.#q<OffersTable>(`${SELECT_OFFER} WHERE seller = $1 AND kind = $2 AND external_id = $3`, [
      kind,
      externalId,
    ]).rows[0];
    return row && toOfferRecord(row);
  }

  async listOffers(kind?: StateKind): Promise<OfferRecord[]> {
    const res =
      kind === undefined
        ? this.#q<OffersTable>(`${SELECT_OFFER} WHERE seller = $1 ORDER BY kind, external_id COLLATE "C"`)
        : this.#q<OffersTable>(`${SELECT_OFFER} WHERE seller = $1 AND kind = $2 ORDER BY external_id COLLATE "C"`, [
            kind,
          ]);
    return res.rows.map(toOfferRecord);
  }

  async offerView(): Promise<OfferView> {
    // One query per offer would be 100,000 round trips: the listing is read once.
    return offerViewOf(await this.listOffers());
  }

  async upsertOffer(kind: StateKind, externalId: string, patch: OfferRecordPatch): Promise<OfferRecord> {
    const row = this.#upsert(kind, externalId, patch, this.#now(), true);
    if (!row) throw new Error('state db: offer upsert returned no row');
    return row;
  }

  /** Many rows per INSERT (a round trip each would make adopting 100k offers take a minute). */
  async upsertOffers(rows: readonly { kind: StateKind; externalId: string; patch: OfferRecordPatch }[]): Promise<void> {
    if (rows.length === 0) return;
    await this.transaction(async () => {
      const now = this.#now();
      // Rows go in order; a batch holds rows of one patch shape and each key once (one INSERT cannot
      // update a row twice), so a later patch of the same offer still lands after the earlier one.
      let shape = '';
      let fields: readonly OfferPatchField[] = [];
      let keys = new Set<string>();
      let values: unknown[][] = [];
      const flush = () => {
        if (values.length > 0) this.#q(this.#upsertSql(fields, values.length), values.flat());
        values = [];
        keys = new Set();
      };
      for (const r of rows) {
        const row = offerDefaults(r.kind, r.externalId, now);
        const set = applyOfferPatch(row, r.patch);
        const key = `${r.kind}\u0000${r.externalId}`;
        if (set.join(',') !== shape || keys.has(key) || values.length >= UPSERT_BATCH) {
          flush();
          shape = set.join(',');
          fields = set;
        }
        keys.add(key);
        values.push(OFFER_COLUMNS.map((c) => row[c]));
      }
      flush();
    });
  }

  async deleteOffer(kind: StateKind, externalId: string): Promise<void> {
    this.#q('DELETE FROM offers WHERE seller = $1 AND kind = $2 AND external_id = $3', [kind, externalId]);
  }

  #upsert(
    kind: StateKind,
    externalId: string,
    patch: OfferRecordPatch,
    now: number,
    returning: boolean,
  ): OfferRecord | undefined {
    const row = offerDefaults(kind, externalId, now);
    const fields = applyOfferPatch(row, patch);
    const sql = this.#upsertSql(fields) + (returning ? ` RETURNING ${OFFER_COLUMNS.join(', ')}` : '');
    const values = OFFER_COLUMNS.map((c) => row[c]);
    const res = this.#q<OffersTable>(sql, values);
    return returning && res.rows[0] ? toOfferRecord(res.rows[0]) : undefined;
  }

  /** INSERT ... ON CONFLICT DO UPDATE of only the columns the patch sets: the others keep their value. */
  #upsertSql(fields: readonly OfferPatchField[], rows = 1): string {
    const key = `${fields.join(',')}/${rows}`;
    let sql = this.#upserts.get(key);
    if (!sql) {
      const columns = ['seller', ...OFFER_COLUMNS];
      const set = [...fields.map((f) => OFFER_PATCH_COLUMNS[f]), 'updated_at'].map((c) => `${c} = excluded.${c}`);
      // $1 is the seller, shared by every row; each row's own values follow.
      const width = OFFER_COLUMNS.length;
      const tuples = Array.from(
        { length: rows },
        (_, r) => `($1, ${OFFER_COLUMNS.map((_, i) => `$${2 + r * width + i}`).join(', ')})`,
      );
      sql =
        `INSERT INTO offers (${columns.join(', ')}) VALUES ${tuples.join(', ')} ` +
        `ON CONFLICT (seller, kind, external_id) DO UPDATE SET ${set.join(', ')}`;
      if (this.#upserts.size < 64) this.#upserts.set(key, sql);
    }
    return sql;
  }

  // images

  async getImage(sha256: string): Promise<ImageRecord | undefined> {
    const row = this.#q<ImagesTable>(
      'SELECT sha256, remote_id, url, uploaded_at FROM images WHERE seller = $1 AND sha256 = $2',
      [sha256],
    ).rows[0];
    return row && toImageRecord(row);
  }

  async putImage(rec: ImageRecord): Promise<void> {
    this.#q(
      `INSERT INTO images (seller, sha256, remote_id, url, uploaded_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (seller, sha256) DO UPDATE SET remote_id = excluded.remote_id, url = excluded.url,
         uploaded_at = excluded.uploaded_at`,
      [rec.sha256, rec.remoteId, rec.url, rec.uploadedAt],
    );
  }

  async listImages(): Promise<ImageRecord[]> {
    return this.#q<ImagesTable>(
      'SELECT sha256, remote_id, url, uploaded_at FROM images WHERE seller = $1 ' +
        'ORDER BY uploaded_at, sha256 COLLATE "C"',
    ).rows.map(toImageRecord);
  }

  // journal

  async journalBegin(entry: {
    runId: string;
    op: JournalOp;
    kind: JournalEntry['kind'];
    keys: readonly string[];
  }): Promise<JournalEntry> {
    const now = this.#now();
    const values = [entry.runId, entry.op, entry.kind, JSON.stringify(entry.keys), now];
    const insert = `INSERT INTO journal (seller, run_id, op, kind, keys, state, error, created_at, updated_at)`;
    const returning = 'RETURNING id, run_id, op, kind, keys, state, error, created_at, updated_at';
    const fence = this.#fence;
    if (!fence) {
      const row = this.#q<JournalRow>(
        `${insert} VALUES ($1, $2, $3, $4, $5, 'pending', NULL, $6, $6) ${returning}`,
        values,
      ).rows[0];
      if (!row) throw new Error('state db: journal insert returned no row');
      return toJournalEntry(row);
    }
    // Fencing: the row goes in only while this replica's lease on the seller is the one it started with
    // and has not run out by the database's clock (the clock every replica's lease is judged by).
    const row = this.#q<JournalRow>(
      `${insert} SELECT $1, $2, $3, $4, $5, 'pending', NULL, $6, $6 WHERE EXISTS (
         SELECT 1 FROM seller_leases WHERE seller = $1 AND holder = $7 AND epoch = $8
           AND expires_at > ${DB_NOW}) ${returning}`,
      [...values, fence.holder, fence.epoch],
    ).rows[0];
    if (!row) throw new FencedWriteError(this.seller, fence.holder);
    return toJournalEntry(row);
  }

  async journalSet(id: number, state: JournalState, error?: string | null): Promise<void> {
    const now = this.#now();
    const res =
      error === undefined
        ? this.#q('UPDATE journal SET state = $3, updated_at = $4 WHERE seller = $1 AND id = $2', [id, state, now])
        : this.#q('UPDATE journal SET state = $3, error = $4, updated_at = $5 WHERE seller = $1 AND id = $2', [
            id,
            state,
            error,
            now,
          ]);
    if (res.rowCount === 0) throw new Error(`state db: no journal entry ${id}`);
  }

  async journalUnfinished(): Promise<JournalEntry[]> {
    return this.#q<JournalRow>(
      `SELECT id, run_id, op, kind, keys, state, error, created_at, updated_at FROM journal
       WHERE seller = $1 AND state IN ('pending', 'sent') ORDER BY id`,
    ).rows.map(toJournalEntry);
  }

  /** Retention, like the sqlite store: the newest keepRuns runs of this seller and their settled journal. */
  async pruneHistory(): Promise<{ runs: number; journal: number }> {
    return this.transaction(async () => {
      const runs = this.#q(
        `DELETE FROM runs WHERE seller = $1 AND id NOT IN (
           SELECT id FROM runs WHERE seller = $1 ORDER BY started_at DESC, id COLLATE "C" DESC LIMIT $2)`,
        [this.#keepRuns],
      ).rowCount;
      const journal = this.#q(
        `DELETE FROM journal WHERE seller = $1 AND state IN ('done', 'failed')
           AND run_id NOT IN (SELECT id FROM runs WHERE seller = $1)`,
      ).rowCount;
      return { runs, journal };
    });
  }

  // capabilities

  async getCapability(name: string): Promise<CapabilityRecord | undefined> {
    const row = this.#q<CapabilitiesTable>(
      'SELECT name, usable, detail, learnt_at FROM capabilities WHERE seller = $1 AND name = $2',
      [name],
    ).rows[0];
    return row && toCapabilityRecord(row);
  }

  async setCapability(name: string, usable: boolean, detail: string | null = null): Promise<void> {
    this.#q(
      `INSERT INTO capabilities (seller, name, usable, detail, learnt_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (seller, name) DO UPDATE SET usable = excluded.usable, detail = excluded.detail,
         learnt_at = excluded.learnt_at`,
      [name, usable ? 1 : 0, detail, this.#now()],
    );
  }

  async listCapabilities(): Promise<CapabilityRecord[]> {
    return this.#q<CapabilitiesTable>(
      'SELECT name, usable, detail, learnt_at FROM capabilities WHERE seller = $1 ORDER BY name COLLATE "C"',
    ).rows.map(toCapabilityRecord);
  }

  // runs

  async runStart(id: string, command: string): Promise<void> {
    this.#q(
      `INSERT INTO runs (seller, id, command, started_at, ended_at, outcome, counts)
       VALUES ($1, $2, $3, $4, NULL, 'running', '{}')`,
      [id, command, this.#now()],
    );
  }

  async runEnd(
    id: string,
    outcome: NonNullable<RunRecord['outcome']>,
    counts: Readonly<Record<string, number>>,
  ): Promise<void> {
    const res = this.#q('UPDATE runs SET ended_at = $3, outcome = $4, counts = $5 WHERE seller = $1 AND id = $2', [
      id,
      this.#now(),
      outcome,
      JSON.stringify(counts),
    ]);
    if (res.rowCount === 0) throw new Error(`state db: no run ${id}`);
  }

  async listRuns(limit: number): Promise<RunRecord[]> {
    return this.#q<RunsTable>(
      `SELECT id, command, started_at, ended_at, outcome, counts FROM runs WHERE seller = $1
       ORDER BY started_at DESC, id COLLATE "C" DESC LIMIT $2`,
      [Math.max(0, Math.floor(limit))],
    ).rows.map(toRunRecord);
  }

  // meta

  async getMeta(key: string): Promise<string | undefined> {
    return this.#q<{ value: string }>('SELECT value FROM seller_meta WHERE seller = $1 AND key = $2', [key]).rows[0]
      ?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    if (key === SCHEMA_VERSION_KEY) throw new Error(`state db: meta key "${key}" belongs to the migrations`);
    this.#q(
      `INSERT INTO seller_meta (seller, key, value) VALUES ($1, $2, $3)
       ON CONFLICT (seller, key) DO UPDATE SET value = excluded.value`,
      [key, value],
    );
  }

  // the seller's lease

  /**
   * Takes the seller's lease when it is free, expired, already this holder's (a renewal) or held by
   * `takeOverFrom`, in one statement (the row lock of INSERT ... ON CONFLICT: two replicas cannot both win).
   * Expiry is judged by the database's clock, the one clock every replica shares. A lease that changes hands
   * gets a new epoch, and this store fences its later writes with the epoch it won (see journalBegin).
   */
  async acquireLease(claim: LeaseClaim, ttlMs: number, takeOverFrom?: string): Promise<LeaseAttempt> {
    // A lease released between the two statements is asked for again, a bounded number of times.
    for (let attempt = 1; ; attempt++) {
      const won = this.#q<{ epoch: number; expires_at: number }>(
        `INSERT INTO seller_leases AS l (seller, holder, pid, hostname, scope, epoch, expires_at)
         VALUES ($1, $2, $3, $4, $5, 1, ${DB_NOW} + $6)
         ON CONFLICT (seller) DO UPDATE SET holder = excluded.holder, pid = excluded.pid,
           hostname = excluded.hostname, scope = excluded.scope, expires_at = excluded.expires_at,
           epoch = CASE WHEN l.holder = excluded.holder THEN l.epoch ELSE l.epoch + 1 END
         WHERE l.holder = excluded.holder OR l.holder = $7 OR l.expires_at <= ${DB_NOW}
         RETURNING epoch, expires_at`,
        [claim.holder, claim.pid, claim.hostname, claim.scope, ttlMs, takeOverFrom ?? null],
      ).rows[0];
      if (won) {
        this.#fence = { holder: claim.holder, epoch: won.epoch };
        return { ok: true, expiresAt: won.expires_at };
      }
      const cur = await this.currentLease();
      if (cur) return { ok: false, heldBy: cur };
      if (attempt >= LEASE_ATTEMPTS)
        throw new Error(`seller ${this.seller}: the lease was released ${attempt} times while being asked for`);
    }
  }

  /** Lets go of the lease if `holder` still holds it. Writes stay fenced: they are refused from now on. */
  async releaseLease(holder: string): Promise<void> {
    this.#q('DELETE FROM seller_leases WHERE seller = $1 AND holder = $2', [holder]);
  }

  /** The lease as stored, expired or not. */
  async currentLease(): Promise<WriterLease | undefined> {
    const row = this.#q<LeaseTable>(
      'SELECT 1 AS id, holder, pid, hostname, scope, expires_at FROM seller_leases WHERE seller = $1',
    ).rows[0];
    return row && toWriterLease(row);
  }

  // transactions

  /** Nested calls become savepoints. */
  async transaction<T>(fn: (tx: StateStore) => Promise<T>): Promise<T> {
    const depth = this.#depth;
    const savepoint = `sp${depth}`;
    this.#conn.query(depth === 0 ? 'BEGIN' : `SAVEPOINT ${savepoint}`);
    this.#depth++;
    try {
      const result = await fn(this);
      this.#conn.query(depth === 0 ? 'COMMIT' : `RELEASE SAVEPOINT ${savepoint}`);
      return result;
    } catch (err) {
      this.#conn.query(depth === 0 ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${savepoint}`);
      throw err;
    } finally {
      this.#depth--;
    }
  }

  async close(): Promise<void> {
    if (this.#ownsConnection) this.#conn.close();
  }
}
