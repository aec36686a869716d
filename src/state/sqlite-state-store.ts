// The state db on better-sqlite3 (docs/architecture.md: Journal, Secrets, Lease): WAL, file mode 0600, migrations on
// open, every statement compiled once by kysely and prepared once. Synchronous, like better-sqlite3.
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import type { OfferKeyPair, OfferView } from './offer-view.ts';
import type { ExpressionBuilder, OnConflictTables, OnConflictUpdateDatabase, UpdateObject } from 'kysely';
import { silentLogger, type Logger } from '../log/logger.ts';
import { compile, param, queryBuilder as qb, type CompiledStatement, type SqlValue } from './compiled-statement.ts';
import { migrate, SCHEMA_VERSION_KEY, type MigrationResult } from './migrations.ts';
import type {
  CapabilityRecord,
  ImageRecord,
  JournalEntry,
  JournalOp,
  JournalState,
  OfferRecord,
  RunRecord,
  StateKind,
  LeaseClaim,
  WriterLease,
} from './records.ts';
import {
  applyOfferPatch,
  offerDefaults,
  offerFromTuple,
  StringPool,
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
import type { Database, OffersTable } from './schema.ts';
import type { LeaseAttempt, OfferRecordPatch, StateStore } from './state-store.ts';

export interface OpenStateStoreOptions {
  /** Default: silent. */
  readonly logger?: Logger;
  /** Epoch ms; tests pass a fake. Default Date.now. */
  readonly now?: () => number;
  /** How long a write waits for another process's lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /** Run history kept by pruneHistory: the newest runs, with their settled journal entries. Default 200. */
  readonly keepRuns?: number;
}

export const DEFAULT_KEEP_RUNS = 200;

/** Owner read/write only: the db holds HMACs, ids and the seller's catalogue data (docs/architecture.md, Secrets). */
const FILE_MODE = 0o600;

export function openStateStore(path: string, opts: OpenStateStoreOptions = {}): SqliteStateStore {
  return new SqliteStateStore(path, opts);
}

type OfferUpsert = { readonly kind: StateKind; readonly externalId: string; readonly patch: OfferRecordPatch };

/** Offers looked up per statement by OfferView.getMany. */
const LOOKUP_BATCH = 200;

export class SqliteStateStore implements StateStore {
  readonly path: string;
  /** What opening did to the schema. */
  readonly migrations: readonly MigrationResult[];
  readonly #db: BetterSqlite3.Database;
  readonly #now: () => number;
  readonly #keepRuns: number;
  readonly #log: Logger;
  /** Upsert statements by the set of columns the patch sets (at most 2^10, in practice a handful). */
  readonly #upserts = new Map<string, { returning: CompiledStatement<unknown>; plain: CompiledStatement<unknown> }>();
  readonly #s;
  readonly #upsertMany: (rows: readonly OfferUpsert[]) => void;

  constructor(path: string, opts: OpenStateStoreOptions = {}) {
    this.path = path;
    this.#now = opts.now ?? Date.now;
    const keepRuns = opts.keepRuns ?? DEFAULT_KEEP_RUNS;
    if (!Number.isSafeInteger(keepRuns) || keepRuns < 1)
      throw new TypeError(`state db: keepRuns must be a whole number of at least 1, got ${String(opts.keepRuns)}`);
    this.#keepRuns = keepRuns;
    this.#log = (opts.logger ?? silentLogger).child({ component: 'state', path });
    const onDisk = path !== ':memory:' && path !== '';
    // Create the file 0600 before SQLite does (it would use 0644 under the usual umask), and tighten one
    // that already exists.
    if (onDisk) {
      closeSync(openSync(path, 'a', FILE_MODE));
      chmodSync(path, FILE_MODE);
    }
    const db = new BetterSqlite3(path);
    this.#db = db;
    try {
      db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
      db.pragma('journal_mode = WAL');
      // NORMAL is safe against a killed process in WAL mode (docs/architecture.md, Journal); only a power cut can lose
      // the last commits.
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      this.migrations = migrate(db, path);
      // SQLite gives -wal and -shm the db file's mode; this is the belt to those braces.
      if (onDisk)
        for (const suffix of ['-wal', '-shm']) if (existsSync(path + suffix)) chmodSync(path + suffix, FILE_MODE);
    } catch (err) {
      db.close();
      throw err;
    }
    for (const m of this.migrations)
      if (m.status === 'applied') this.#log.info({ version: m.version, name: m.name }, 'state db migrated');

    this.#s = this.#prepareStatements();
    this.#upsertMany = db.transaction((rows: readonly OfferUpsert[]) => {
      const now = this.#now();
      for (const r of rows) this.#upsert(r.kind, r.externalId, r.patch, now, false);
    });
  }

  #prepareStatements() {
    const db = this.#db;
    return {
      getOffer: compile(
        db,
        qb
          .selectFrom('offers')
          .selectAll()
          .where('kind', '=', param<string>('kind'))
          .where('external_id', '=', param<string>('externalId')),
      ),
      // Explicit column lists: listOffers reads them as tuples, by position.
      listOffers: compile(db, qb.selectFrom('offers').select(OFFER_COLUMNS).orderBy('kind').orderBy('external_id')),
      findOffer: compile(
        db,
        qb
          .selectFrom('offers')
          .select(OFFER_COLUMNS)
          .where('kind', '=', param<string>('kind'))
          .where('external_id', '=', param<string>('externalId')),
      ),
      listOfferKeys: compile(
        db,
        qb.selectFrom('offers').select(['kind', 'external_id']).orderBy('kind').orderBy('external_id'),
      ),
      countManaged: compile(
        db,
        qb
          .selectFrom('offers')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('managed', '=', 1)
          .where((eb) => eb.or([eb('remote_status', 'is', null), eb('remote_status', '!=', 'archived')])),
      ),
      listOffersOfKind: compile(
        db,
        qb.selectFrom('offers').select(OFFER_COLUMNS).where('kind', '=', param<string>('kind')).orderBy('external_id'),
      ),
      deleteOffer: compile(
        db,
        qb
          .deleteFrom('offers')
          .where('kind', '=', param<string>('kind'))
          .where('external_id', '=', param<string>('externalId')),
      ),

      getImage: compile(db, qb.selectFrom('images').selectAll().where('sha256', '=', param<string>('sha256'))),
      putImage: compile(
        db,
        qb
          .insertInto('images')
          .values({
            sha256: param<string>('sha256'),
            remote_id: param<number>('remoteId'),
            url: param<string | null>('url'),
            uploaded_at: param<number>('uploadedAt'),
          })
          .onConflict((oc) =>
            oc.column('sha256').doUpdateSet((eb) => ({
              remote_id: eb.ref('excluded.remote_id'),
              url: eb.ref('excluded.url'),
              uploaded_at: eb.ref('excluded.uploaded_at'),
            })),
          ),
      ),
      listImages: compile(db, qb.selectFrom('images').selectAll().orderBy('uploaded_at').orderBy('sha256')),

      journalInsert: compile(
        db,
        qb
          .insertInto('journal')
          .values({
            run_id: param<string>('runId'),
            op: param<string>('op'),
            kind: param<string>('kind'),
            keys: param<string>('keys'),
            state: 'pending',
            error: null,
            created_at: param<number>('now'),
            updated_at: param<number>('now'),
          })
          .returningAll(),
      ),
      journalSet: compile(
        db,
        qb
          .updateTable('journal')
          .set({ state: param<string>('state'), updated_at: param<number>('now') })
          .where('id', '=', param<number>('id')),
      ),
      journalSetWithError: compile(
        db,
        qb
          .updateTable('journal')
          .set({
            state: param<string>('state'),
            error: param<string | null>('error'),
            updated_at: param<number>('now'),
          })
          .where('id', '=', param<number>('id')),
      ),
      journalUnfinished: compile(
        db,
        qb.selectFrom('journal').selectAll().where('state', 'in', ['pending', 'sent']).orderBy('id'),
      ),
      pruneRuns: compile(
        db,
        qb
          .deleteFrom('runs')
          .where('id', 'not in', (eb) =>
            eb
              .selectFrom('runs')
              .select('id')
              .orderBy('started_at', 'desc')
              .orderBy('id', 'desc')
              .limit(param<number>('keep')),
          ),
      ),
      pruneJournal: compile(
        db,
        qb
          .deleteFrom('journal')
          .where('state', 'in', ['done', 'failed'])
          .where('run_id', 'not in', (eb) => eb.selectFrom('runs').select('runs.id')),
      ),

      getCapability: compile(db, qb.selectFrom('capabilities').selectAll().where('name', '=', param<string>('name'))),
      setCapability: compile(
        db,
        qb
          .insertInto('capabilities')
          .values({
            name: param<string>('name'),
            usable: param<number>('usable'),
            detail: param<string | null>('detail'),
            learnt_at: param<number>('now'),
          })
          .onConflict((oc) =>
            oc.column('name').doUpdateSet((eb) => ({
              usable: eb.ref('excluded.usable'),
              detail: eb.ref('excluded.detail'),
              learnt_at: eb.ref('excluded.learnt_at'),
            })),
          ),
      ),
      listCapabilities: compile(db, qb.selectFrom('capabilities').selectAll().orderBy('name')),

      runStart: compile(
        db,
        qb.insertInto('runs').values({
          id: param<string>('id'),
          command: param<string>('command'),
          started_at: param<number>('now'),
          ended_at: null,
          outcome: 'running',
          counts: '{}',
        }),
      ),
      runEnd: compile(
        db,
        qb
          .updateTable('runs')
          .set({ ended_at: param<number>('now'), outcome: param<string>('outcome'), counts: param<string>('counts') })
          .where('id', '=', param<string>('id')),
      ),
      listRuns: compile(
        db,
        qb
          .selectFrom('runs')
          .selectAll()
          .orderBy('started_at', 'desc')
          .orderBy('id', 'desc')
          .limit(param<number>('limit')),
      ),

      getMeta: compile(db, qb.selectFrom('meta').select('value').where('key', '=', param<string>('key'))),
      setMeta: compile(
        db,
        qb
          .insertInto('meta')
          .values({ key: param<string>('key'), value: param<string>('value') })
          .onConflict((oc) => oc.column('key').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') }))),
      ),

      getLease: compile(db, qb.selectFrom('lease').selectAll().where('id', '=', 1)),
      putLease: compile(
        db,
        qb
          .insertInto('lease')
          .values({
            id: 1,
            holder: param<string>('holder'),
            pid: param<number>('pid'),
            hostname: param<string>('hostname'),
            scope: param<string>('scope'),
            expires_at: param<number>('expiresAt'),
          })
          .onConflict((oc) =>
            oc.column('id').doUpdateSet((eb) => ({
              holder: eb.ref('excluded.holder'),
              pid: eb.ref('excluded.pid'),
              hostname: eb.ref('excluded.hostname'),
              scope: eb.ref('excluded.scope'),
              expires_at: eb.ref('excluded.expires_at'),
            })),
          ),
      ),
      releaseLease: compile(
        db,
        qb.deleteFrom('lease').where('id', '=', 1).where('holder', '=', param<string>('holder')),
      ),
    };
  }

  // offers

  async getOffer(kind: StateKind, externalId: string): Promise<OfferRecord | undefined> {
    const row = this.#s.getOffer.get({ kind, externalId });
    return row && toOfferRecord(row);
  }

  async listOffers(kind?: StateKind): Promise<OfferRecord[]> {
    // 100k offers are read at the start of every run: arrays, not an object per row, halve the time.
    const rows = kind === undefined ? this.#s.listOffers.tuples() : this.#s.listOffersOfKind.tuples({ kind });
    const out: OfferRecord[] = [];
    const pool = new StringPool();
    for (const t of rows) out.push(offerFromTuple(t, pool));
    return out;
  }

  async offerView(): Promise<OfferView> {
    const s = this.#s;
    const pool = new StringPool();
    return {
      get(kind, externalId) {
        const t = s.findOffer.tuple({ kind, externalId });
        return t === undefined ? undefined : offerFromTuple(t, pool);
      },
      getMany: (keys) => this.#getMany(keys, pool),
      *all() {
        for (const t of s.listOffers.tuples()) yield offerFromTuple(t, pool);
      },
      *keys() {
        for (const t of s.listOfferKeys.tuples()) yield [t[0] as StateKind, t[1] as string] as const;
      },
      countManaged: () => Number(s.countManaged.get()?.n ?? 0),
    };
  }

  #manyStatement: BetterSqlite3.Statement<unknown[], unknown[]> | undefined;

  /**
   * Rows of one kind by external_id, LOOKUP_BATCH at a time: a 100,000-offer plan asks for each of its offers, and
   * one statement per offer was most of its time. Unused slots are NULL, which matches nothing.
   */
  #getMany(keys: readonly OfferKeyPair[], pool: StringPool): (OfferRecord | undefined)[] {
    this.#manyStatement ??= this.#db
      .prepare<unknown[], unknown[]>(
        `SELECT ${OFFER_COLUMNS.join(', ')} FROM offers WHERE kind = ? AND external_id IN ` +
          `(${Array.from({ length: LOOKUP_BATCH }, () => '?').join(', ')})`,
      )
      .raw(true);
    const out: (OfferRecord | undefined)[] = new Array(keys.length).fill(undefined);
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
        for (const t of this.#manyStatement.iterate(kind, ...ids)) {
          const rec = offerFromTuple(t, pool);
          for (const pos of where.get(rec.externalId) ?? []) out[pos] = rec;
        }
      }
    }
    return out;
  }

  async upsertOffer(kind: StateKind, externalId: string, patch: OfferRecordPatch): Promise<OfferRecord> {
    return this.#upsert(kind, externalId, patch, this.#now(), true) as OfferRecord;
  }

  async upsertOffers(rows: readonly OfferUpsert[]): Promise<void> {
    if (rows.length > 0) this.#upsertMany(rows);
  }

  async deleteOffer(kind: StateKind, externalId: string): Promise<void> {
    this.#s.deleteOffer.run({ kind, externalId });
  }

  /** INSERT ... ON CONFLICT DO UPDATE of only the columns the patch sets: the others keep their value. */
  #upsert(
    kind: StateKind,
    externalId: string,
    patch: OfferRecordPatch,
    now: number,
    returning: boolean,
  ): OfferRecord | undefined {
    const row = offerDefaults(kind, externalId, now);
    const fields = applyOfferPatch(row, patch);
    const stmts = this.#upsertStatements(fields);
    const params = row as unknown as Record<string, string | number | null>;
    if (!returning) {
      stmts.plain.run(params);
      return undefined;
    }
    return toOfferRecord(stmts.returning.get(params) as Parameters<typeof toOfferRecord>[0]);
  }

  #upsertStatements(fields: readonly OfferPatchField[]) {
    const key = fields.join(',');
    let stmts = this.#upserts.get(key);
    if (!stmts) {
      const columns = [...fields.map((f) => OFFER_PATCH_COLUMNS[f]), 'updated_at' as const];
      // Every column is a named parameter: one statement per patch shape, whatever the values.
      const values = Object.fromEntries(OFFER_COLUMNS.map((c) => [c, param<SqlValue>(c)])) as unknown as OffersTable;
      const query = qb
        .insertInto('offers')
        .values(values)
        .onConflict((oc) => oc.columns(['kind', 'external_id']).doUpdateSet((eb) => excludedSet(eb, columns)));
      stmts = { returning: compile(this.#db, query.returningAll()), plain: compile(this.#db, query) };
      this.#upserts.set(key, stmts);
    }
    return stmts;
  }

  // images

  async getImage(sha256: string): Promise<ImageRecord | undefined> {
    const row = this.#s.getImage.get({ sha256 });
    return row && toImageRecord(row);
  }

  async putImage(rec: ImageRecord): Promise<void> {
    this.#s.putImage.run({ sha256: rec.sha256, remoteId: rec.remoteId, url: rec.url, uploadedAt: rec.uploadedAt });
  }

  async listImages(): Promise<ImageRecord[]> {
    return this.#s.listImages.all().map(toImageRecord);
  }

  // journal

  async journalBegin(entry: {
    runId: string;
    op: JournalOp;
    kind: JournalEntry['kind'];
    keys: readonly string[];
  }): Promise<JournalEntry> {
    const row = this.#s.journalInsert.get({
      runId: entry.runId,
      op: entry.op,
      kind: entry.kind,
      keys: JSON.stringify(entry.keys),
      now: this.#now(),
    });
    if (!row) throw new Error('state db: journal insert returned no row');
    return toJournalEntry(row);
  }

  /** `error` undefined keeps the entry's error as it is; null clears it. */
  async journalSet(id: number, state: JournalState, error?: string | null): Promise<void> {
    const now = this.#now();
    const res =
      error === undefined
        ? this.#s.journalSet.run({ id, state, now })
        : this.#s.journalSetWithError.run({ id, state, error, now });
    if (res.changes === 0) throw new Error(`state db: no journal entry ${id}`);
  }

  async journalUnfinished(): Promise<JournalEntry[]> {
    return this.#s.journalUnfinished.all().map(toJournalEntry);
  }

  async pruneHistory(): Promise<{ runs: number; journal: number }> {
    return this.#db.transaction(() => {
      const runs = this.#s.pruneRuns.run({ keep: this.#keepRuns }).changes;
      const journal = this.#s.pruneJournal.run().changes;
      return { runs, journal };
    })();
  }

  // capabilities

  async getCapability(name: string): Promise<CapabilityRecord | undefined> {
    const row = this.#s.getCapability.get({ name });
    return row && toCapabilityRecord(row);
  }

  async setCapability(name: string, usable: boolean, detail: string | null = null): Promise<void> {
    this.#s.setCapability.run({ name, usable: usable ? 1 : 0, detail, now: this.#now() });
  }

  async listCapabilities(): Promise<CapabilityRecord[]> {
    return this.#s.listCapabilities.all().map(toCapabilityRecord);
  }

  // runs

  async runStart(id: string, command: string): Promise<void> {
    this.#s.runStart.run({ id, command, now: this.#now() });
  }

  async runEnd(
    id: string,
    outcome: NonNullable<RunRecord['outcome']>,
    counts: Readonly<Record<string, number>>,
  ): Promise<void> {
    const res = this.#s.runEnd.run({ id, outcome, counts: JSON.stringify(counts), now: this.#now() });
    if (res.changes === 0) throw new Error(`state db: no run ${id}`);
  }

  async listRuns(limit: number): Promise<RunRecord[]> {
    return this.#s.listRuns.all({ limit: Math.max(0, Math.floor(limit)) }).map(toRunRecord);
  }

  // meta

  async getMeta(key: string): Promise<string | undefined> {
    return this.#s.getMeta.get({ key })?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    if (key === SCHEMA_VERSION_KEY) throw new Error(`state db: meta key "${key}" belongs to the migrations`);
    this.#s.setMeta.run({ key, value });
  }

  // lease

  /**
   * Takes the lease when it is free, expired, already ours (a renewal) or held by `takeOverFrom`, in one
   * IMMEDIATE transaction so two processes cannot both win. It runs until now + ttlMs by this store's clock:
   * the same clock sets and judges expiry.
   */
  async acquireLease(claim: LeaseClaim, ttlMs: number, takeOverFrom?: string): Promise<LeaseAttempt> {
    const attempt = this.#db.transaction((): LeaseAttempt => {
      const now = this.#now();
      const row = this.#s.getLease.get();
      if (row && row.holder !== claim.holder && row.holder !== takeOverFrom && row.expires_at > now)
        return { ok: false, heldBy: toWriterLease(row) };
      const expiresAt = now + ttlMs;
      this.#s.putLease.run({
        holder: claim.holder,
        pid: claim.pid,
        hostname: claim.hostname,
        scope: claim.scope,
        expiresAt,
      });
      return { ok: true, expiresAt };
    });
    return attempt.immediate();
  }

  async releaseLease(holder: string): Promise<void> {
    this.#s.releaseLease.run({ holder });
  }

  /** The lease as stored, expired or not. */
  async currentLease(): Promise<WriterLease | undefined> {
    const row = this.#s.getLease.get();
    return row && toWriterLease(row);
  }

  // transactions

  #depth = 0;

  /**
   * BEGIN ... COMMIT around fn, savepoints when nested. better-sqlite3 answers synchronously, so fn's awaits
   * on this store settle without giving timers a turn: nothing else runs inside the transaction.
   */
  async transaction<T>(fn: (tx: StateStore) => Promise<T>): Promise<T> {
    const depth = this.#depth;
    const savepoint = `sp${depth}`;
    this.#db.exec(depth === 0 ? 'BEGIN' : `SAVEPOINT ${savepoint}`);
    this.#depth++;
    try {
      const result = await fn(this);
      this.#db.exec(depth === 0 ? 'COMMIT' : `RELEASE SAVEPOINT ${savepoint}`);
      return result;
    } catch (err) {
      if (this.#db.inTransaction) this.#db.exec(depth === 0 ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${savepoint}`);
      throw err;
    } finally {
      this.#depth--;
    }
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

type ConflictDb = OnConflictUpdateDatabase<Database, 'offers'>;
type ConflictTables = OnConflictTables<'offers'>;

/** `SET col = excluded.col` for each column: the patch's columns win, the others keep the stored value. */
function excludedSet(
  eb: ExpressionBuilder<ConflictDb, ConflictTables>,
  columns: readonly (keyof OffersTable)[],
): UpdateObject<ConflictDb, ConflictTables> {
  const set: Record<string, unknown> = {};
  // Each excluded.col has exactly col's type; kysely cannot see that through a loop, hence the cast.
  for (const c of columns) set[c] = eb.ref(`excluded.${c}`);
  return set as UpdateObject<ConflictDb, ConflictTables>;
}
