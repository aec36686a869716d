// The state of one seller (docs/architecture.md: Journal, Lease), written once in kysely for SQLite and
// PostgreSQL alike: both hold the same tables, every row keyed by seller first. What must differ by dialect
// (the clock leases are judged by, how the offers are read for a plan) comes from the StateDatabase.
import {
  type ExpressionBuilder,
  type Kysely,
  type OnConflictTables,
  type OnConflictUpdateDatabase,
  type Transaction,
  type UpdateObject,
  sql,
} from 'kysely';
import { type AccountMark, accountMarksIn } from './account-marks.ts';
import type { OfferView } from './offer-view.ts';
import { SCHEMA_VERSION_KEY, type MigrationResult, schemaVersion } from './migrations.ts';
import type {
  CapabilityRecord,
  ImageRecord,
  JournalEntry,
  JournalOp,
  JournalState,
  LeaseClaim,
  OfferEvent,
  OfferEventInput,
  OfferRecord,
  OfferSearchHit,
  RunRecord,
  SaleRecord,
  StateKind,
  WriterLease,
} from './records.ts';
import { STATE_KINDS } from './records.ts';
import {
  applyOfferPatch,
  OFFER_COLUMNS,
  OFFER_PATCH_COLUMNS,
  type OfferPatchField,
  offerDefaults,
  offerEventRow,
  toCapabilityRecord,
  toOfferEvent,
  toImageRecord,
  toJournalEntry,
  toOfferRecord,
  toRunRecord,
  toWriterLease,
} from './rows.ts';
import type { Database, OffersTable } from './db-schema.ts';
import type { StateDatabase } from './state-database.ts';
import { hostLeaseClock, type LeaseClock, wallLeaseClock } from './lease-clock.ts';
import type { LeaseAttempt, LeaseRenewal, OfferRecordPatch, StateStore } from './state-store.ts';
import { GroupCommit } from './group-commit.ts';
import type { OfferRow } from './hot-ops.ts';

/** The lease a write batch must still hold: checked in the same statement that journals the batch. */
export interface LeaseFence {
  readonly holder: string;
  readonly epoch: number;
}

/** A write was refused because another holder has the seller's lease now. Nothing was sent. */
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

export interface KyselyStateStoreOptions {
  /** Epoch ms for the rows' timestamps; tests pass a fake. Default Date.now. */
  readonly now?: () => number;
  /**
   * sqlite's lease clock (lease-clock.ts). Default: the machine's monotonic clock; with `now` given and this not,
   * `now` (tests that move one fake clock).
   */
  readonly leaseClock?: LeaseClock;
  /** Run history kept by pruneHistory: the newest runs, with their settled journal entries. Default 200. */
  readonly keepRuns?: number;
  /** close() closes the database too (a store opened on its own); false when many sellers share it. */
  readonly ownsDatabase?: boolean;
  /** What opening did to the schema. */
  readonly migrations?: readonly MigrationResult[];
}

export const DEFAULT_KEEP_RUNS = 200;

/** Rows per INSERT in upsertOffers: 14 parameters each, under SQLite's 32,766 and PostgreSQL's 65,535. */
const UPSERT_BATCH = 500;

/**
 * Events kept per offer (`offersync history`): the newest, whatever run pruning drops. At most this many rows per
 * offer, so the table stays within offers x OFFER_EVENTS_KEPT.
 */
export const OFFER_EVENTS_KEPT = 100;

/** Rows per INSERT of events (12 parameters each), and offers per pruning statement (2 each). */
const EVENT_BATCH = 400;

/** searchOffers answers at most this many offers, whatever it is asked. */
export const SEARCH_LIMIT_MAX = 100;
const SEARCH_LIMIT_DEFAULT = 20;

/** Tries of acquireLease when the lease keeps being released between its two statements. */
const LEASE_ATTEMPTS = 5;

type Db = Kysely<Database>;
type PatchColumns = readonly ((typeof OFFER_PATCH_COLUMNS)[OfferPatchField] | 'updated_at')[];
/** The columns an upsert sets, one array per set of patched fields (applyOfferPatch answers each set as one array). */
const PATCH_COLUMNS = new WeakMap<readonly OfferPatchField[], PatchColumns>();
type OfferUpsert = { readonly kind: StateKind; readonly externalId: string; readonly patch: OfferRecordPatch };

/** What a store and the stores of its transactions share. */
interface Shared {
  /** Set by the lease a store won: every journalBegin checks it still holds (see journalBegin). */
  fence: LeaseFence | null;
  closed: boolean;
}

/**
 * The seller_meta rows every seller shares: '' is no seller id in PostgreSQL (ids are lowercase letters, digits
 * and -) and the file's own seller in sqlite, whose one seller then shares with itself. Keys are prefixed
 * `shared.` so they never meet a seller's own.
 */
const SHARED_META_SELLER = '';

export class KyselyStateStore implements StateStore {
  readonly seller: string;
  readonly migrations: readonly MigrationResult[];
  readonly #database: StateDatabase;
  /** The database, or the transaction this store is bound to. */
  readonly #db: Db;
  readonly #inTransaction: boolean;
  readonly #now: () => number;
  readonly #leaseClock: LeaseClock;
  readonly #keepRuns: number;
  readonly #ownsDatabase: boolean;
  readonly #shared: Shared;
  /** The hot writes outside a transaction, batched (group-commit.ts); a transaction's store runs its own. */
  readonly #group: GroupCommit | null;
  #savepoints = 0;

  /** `within`: only for the store a transaction hands its fn (see transaction). */
  constructor(
    database: StateDatabase,
    seller: string,
    opts: KyselyStateStoreOptions = {},
    within?: { readonly trx: Transaction<Database>; readonly shared: Shared },
  ) {
    const keepRuns = opts.keepRuns ?? DEFAULT_KEEP_RUNS;
    if (!Number.isSafeInteger(keepRuns) || keepRuns < 1)
      throw new TypeError(`state db: keepRuns must be a whole number of at least 1, got ${String(opts.keepRuns)}`);
    this.seller = seller;
    this.migrations = opts.migrations ?? [];
    this.#database = database;
    this.#db = within?.trx ?? database.db;
    this.#inTransaction = within !== undefined;
    this.#now = opts.now ?? Date.now;
    this.#leaseClock = opts.leaseClock ?? (opts.now ? wallLeaseClock(opts.now) : hostLeaseClock());
    this.#keepRuns = keepRuns;
    this.#ownsDatabase = opts.ownsDatabase ?? false;
    this.#shared = within?.shared ?? { fence: null, closed: false };
    this.#group = within ? null : new GroupCommit(database.hot, seller);
  }

  /** The sqlite file, or the PostgreSQL URL without its password. */
  get path(): string {
    return this.#database.where;
  }

  /** The same store bound to one transaction. */
  #bound(trx: Transaction<Database>): KyselyStateStore {
    const opts = { now: this.#now, leaseClock: this.#leaseClock, keepRuns: this.#keepRuns };
    return new KyselyStateStore(this.#database, this.seller, opts, { trx, shared: this.#shared });
  }

  #rowsOf(fields: readonly OfferPatchField[]): PatchColumns {
    let columns = PATCH_COLUMNS.get(fields);
    if (!columns) {
      columns = Object.freeze([...fields.map((f) => OFFER_PATCH_COLUMNS[f]), 'updated_at' as const]);
      PATCH_COLUMNS.set(fields, columns);
    }
    return columns;
  }

  // offers

  async getOffer(kind: StateKind, externalId: string): Promise<OfferRecord | undefined> {
    if (this.#group) {
      const found = await this.#group.ask({ op: 'offer-get', kind, externalId });
      return found && toOfferRecord(offerRow(found));
    }
    const row = await this.#db
      .selectFrom('offers')
      .select(OFFER_COLUMNS)
      .where('seller', '=', this.seller)
      .where('kind', '=', kind)
      .where('external_id', '=', externalId)
      .executeTakeFirst();
    return row && toOfferRecord(row);
  }

  async listOffers(kind?: StateKind): Promise<OfferRecord[]> {
    const rows = await this.#db
      .selectFrom('offers')
      .select(OFFER_COLUMNS)
      .where('seller', '=', this.seller)
      .$if(kind !== undefined, (q) => q.where('kind', '=', kind as StateKind))
      .orderBy('kind')
      .orderBy('external_id')
      .execute();
    return rows.map(toOfferRecord);
  }

  offerView(): Promise<OfferView> {
    return this.#database.offerView(this.seller);
  }

  async upsertOffer(kind: StateKind, externalId: string, patch: OfferRecordPatch): Promise<OfferRecord> {
    const row = offerDefaults(kind, externalId, this.#now());
    const fields = applyOfferPatch(row, patch);
    if (this.#group) {
      const saved = await this.#group.ask({ op: 'offer-upsert', row, set: this.#rowsOf(fields) });
      if (!saved) throw new Error(`state db: the offer ${kind} ${externalId} was not written`);
      return toOfferRecord(offerRow(saved));
    }
    const saved = await this.#db
      .insertInto('offers')
      .values({ seller: this.seller, ...row })
      .onConflict((oc) =>
        oc.columns(['seller', 'kind', 'external_id']).doUpdateSet((eb) => excludedSet(eb, this.#rowsOf(fields))),
      )
      .returning(OFFER_COLUMNS)
      .executeTakeFirstOrThrow();
    return toOfferRecord(saved);
  }

  async applyOffer(
    kind: StateKind,
    externalId: string,
    patchOf: (stored: OfferRecord | undefined) => OfferRecordPatch,
    done?: number,
  ): Promise<void> {
    if (!this.#group) {
      if (done !== undefined) await this.journalSet(done, 'done');
      await this.upsertOffer(kind, externalId, patchOf(await this.getOffer(kind, externalId)));
      return;
    }
    const now = this.#now();
    const applied = await this.#group.ask({
      op: 'offer-apply',
      kind,
      externalId,
      done: done === undefined ? null : { id: done, at: now },
      rowOf: (stored) => {
        const row = offerDefaults(kind, externalId, now);
        const fields = applyOfferPatch(row, patchOf(stored && toOfferRecord(offerRow(stored))));
        return { row, set: this.#rowsOf(fields) };
      },
    });
    if (done !== undefined && applied.settled === 0) throw new Error(`state db: no journal entry ${done}`);
    if (!applied.written) throw new Error(`state db: the offer ${kind} ${externalId} was not written`);
  }

  /** Many rows per INSERT, in one transaction (a round trip each would make adopting 100k offers take minutes). */
  async upsertOffers(rows: readonly OfferUpsert[]): Promise<void> {
    if (rows.length === 0) return;
    await this.transaction(async (tx) => (tx as KyselyStateStore).#upsertMany(rows));
  }

  async #upsertMany(rows: readonly OfferUpsert[]): Promise<void> {
    const now = this.#now();
    // Rows go in order; a batch holds rows of one patch shape and each key once (one INSERT cannot update a
    // row twice), so a later patch of the same offer still lands after the earlier one.
    let fields: readonly OfferPatchField[] = [];
    let keys = new Set<string>();
    let values: (OffersTable & { seller: string })[] = [];
    const flush = async () => {
      if (values.length > 0) {
        const set = this.#rowsOf(fields);
        await this.#db
          .insertInto('offers')
          .values(values)
          .onConflict((oc) => oc.columns(['seller', 'kind', 'external_id']).doUpdateSet((eb) => excludedSet(eb, set)))
          .execute();
      }
      values = [];
      keys = new Set();
    };
    for (const r of rows) {
      const row = offerDefaults(r.kind, r.externalId, now);
      const set = applyOfferPatch(row, r.patch);
      const key = `${r.kind}\u0000${r.externalId}`;
      // One array for each set of fields (applyOfferPatch): the same array is the same shape.
      if (set !== fields || keys.has(key) || values.length >= UPSERT_BATCH) {
        await flush();
        fields = set;
      }
      keys.add(key);
      values.push({ seller: this.seller, ...row });
    }
    await flush();
  }

  async deleteOffer(kind: StateKind, externalId: string): Promise<void> {
    await this.#db
      .deleteFrom('offers')
      .where('seller', '=', this.seller)
      .where('kind', '=', kind)
      .where('external_id', '=', externalId)
      .execute();
  }

  // images

  async getImage(sha256: string): Promise<ImageRecord | undefined> {
    const row = await this.#db
      .selectFrom('images')
      .select(['sha256', 'remote_id', 'url', 'uploaded_at'])
      .where('seller', '=', this.seller)
      .where('sha256', '=', sha256)
      .executeTakeFirst();
    return row && toImageRecord(row);
  }

  async putImage(rec: ImageRecord): Promise<void> {
    await this.#db
      .insertInto('images')
      .values({
        seller: this.seller,
        sha256: rec.sha256,
        remote_id: rec.remoteId,
        url: rec.url,
        uploaded_at: rec.uploadedAt,
      })
      .onConflict((oc) =>
        oc.columns(['seller', 'sha256']).doUpdateSet((eb) => ({
          remote_id: eb.ref('excluded.remote_id'),
          url: eb.ref('excluded.url'),
          uploaded_at: eb.ref('excluded.uploaded_at'),
        })),
      )
      .execute();
  }

  async listImages(): Promise<ImageRecord[]> {
    const rows = await this.#db
      .selectFrom('images')
      .select(['sha256', 'remote_id', 'url', 'uploaded_at'])
      .where('seller', '=', this.seller)
      .orderBy('uploaded_at')
      .orderBy('sha256')
      .execute();
    return rows.map(toImageRecord);
  }

  // journal

  /**
   * Journals a write before it is sent. Once this store won the seller's lease, the row goes in only while that
   * lease is still this holder's, with the epoch it was won at, unexpired by the lease clock: checked in the same
   * statement, so a holder that lost the lease can never journal (and so never send) a write.
   */
  async journalBegin(entry: {
    runId: string;
    op: JournalOp;
    kind: JournalEntry['kind'];
    keys: readonly string[];
    state?: 'pending' | 'sent';
  }): Promise<JournalEntry> {
    const now = this.#now();
    const fence = this.#shared.fence;
    const values = {
      seller: this.seller,
      run_id: entry.runId,
      op: entry.op,
      kind: entry.kind,
      keys: JSON.stringify(entry.keys),
      state: entry.state ?? 'pending',
      error: null,
      created_at: now,
      updated_at: now,
    };
    if (this.#group) {
      const { seller: _, ...row } = values;
      const leaseNow = fence ? this.#leaseClock.now() : 0;
      const saved = await this.#group.ask({ op: 'journal-insert', row, fence, leaseNow });
      if (!saved) throw new FencedWriteError(this.seller, fence?.holder ?? '');
      // Made from what was written, not read back (its keys not parsed again).
      const { runId, op, kind, keys } = entry;
      return {
        id: saved.id,
        runId,
        op,
        kind,
        keys: [...keys],
        state: row.state,
        error: null,
        createdAt: now,
        updatedAt: now,
      };
    }
    if (!fence) {
      const row = await this.#db.insertInto('journal').values(values).returningAll().executeTakeFirstOrThrow();
      return toJournalEntry(row);
    }
    const clock = this.#database.clock(this.#leaseClock.now());
    const row = await this.#db
      .insertInto('journal')
      .columns(['seller', 'run_id', 'op', 'kind', 'keys', 'state', 'error', 'created_at', 'updated_at'])
      .expression(
        this.#db
          .selectNoFrom((eb) => [
            eb.val(values.seller).as('seller'),
            eb.val(values.run_id).as('run_id'),
            eb.val(values.op).as('op'),
            eb.val(values.kind).as('kind'),
            eb.val(values.keys).as('keys'),
            eb.val(values.state).as('state'),
            sql<string | null>`NULL`.as('error'),
            eb.val(now).as('created_at'),
            eb.val(now).as('updated_at'),
          ])
          .where(({ exists, selectFrom }) =>
            exists(
              selectFrom('seller_leases')
                .select(sql`1`.as('one'))
                .where('seller', '=', this.seller)
                .where('holder', '=', fence.holder)
                .where('epoch', '=', fence.epoch)
                .where('expires_at', '>', clock),
            ),
          ),
      )
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new FencedWriteError(this.seller, fence.holder);
    return toJournalEntry(row);
  }

  /** `error` undefined keeps the entry's error as it is; null clears it. */
  async journalSet(id: number, state: JournalState, error?: string | null): Promise<void> {
    if (this.#group) {
      const n = await this.#group.ask({ op: 'journal-set', id, state, error, at: this.#now() });
      if (n === 0) throw new Error(`state db: no journal entry ${id}`);
      return;
    }
    const res = await this.#db
      .updateTable('journal')
      .set({ state, updated_at: this.#now(), ...(error === undefined ? {} : { error }) })
      .where('seller', '=', this.seller)
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw new Error(`state db: no journal entry ${id}`);
  }

  async journalUnfinished(): Promise<JournalEntry[]> {
    const rows = await this.#db
      .selectFrom('journal')
      .select(['id', 'run_id', 'op', 'kind', 'keys', 'state', 'error', 'created_at', 'updated_at'])
      .where('seller', '=', this.seller)
      .where('state', 'in', ['pending', 'sent'])
      .orderBy('id')
      .execute();
    return rows.map(toJournalEntry);
  }

  /**
   * How many creates of each of these offers the journal holds that may have reached the marketplace (done, or
   * sent with no answer): the copies of an offer that offersync itself made.
   */
  async journalCreateCounts(kind: StateKind, externalIds: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (externalIds.length === 0) return counts;
    const byKeys = new Map(externalIds.map((e) => [JSON.stringify([e]), e]));
    const rows = await this.#db
      .selectFrom('journal')
      .select(['keys', (eb) => eb.fn.countAll<number>().as('n')])
      .where('seller', '=', this.seller)
      .where('kind', '=', kind)
      .where('op', 'in', ['create', 'recreate'])
      .where('state', 'in', ['done', 'sent'])
      .where('keys', 'in', [...byKeys.keys()])
      .groupBy('keys')
      .execute();
    for (const r of rows) {
      const id = byKeys.get(r.keys);
      if (id !== undefined) counts.set(id, Number(r.n));
    }
    return counts;
  }

  async pruneHistory(): Promise<{ runs: number; journal: number }> {
    return this.transaction(async (tx) => (tx as KyselyStateStore).#prune());
  }

  async #prune(): Promise<{ runs: number; journal: number }> {
    const runs = await this.#db
      .deleteFrom('runs')
      .where('seller', '=', this.seller)
      .where('id', 'not in', (eb) =>
        eb
          .selectFrom('runs')
          .select('id')
          .where('seller', '=', this.seller)
          .orderBy('started_at', 'desc')
          .orderBy('id', 'desc')
          .limit(this.#keepRuns),
      )
      .executeTakeFirst();
    const journal = await this.#db
      .deleteFrom('journal')
      .where('seller', '=', this.seller)
      .where('state', 'in', ['done', 'failed'])
      .where('run_id', 'not in', (eb) => eb.selectFrom('runs').select('runs.id').where('runs.seller', '=', this.seller))
      .executeTakeFirst();
    return { runs: Number(runs.numDeletedRows), journal: Number(journal.numDeletedRows) };
  }

  // each offer's story

  async recordOfferEvents(events: readonly OfferEventInput[]): Promise<void> {
    if (events.length === 0) return;
    // The inserts and the pruning of the offers they touch commit together: one hot op (prepared statements, no
    // query built), or within the transaction a run's batch is in.
    if (this.#group) {
      await this.#group.ask({ op: 'offer-events', rows: events.map(offerEventRow), kept: OFFER_EVENTS_KEPT });
      return;
    }
    if (!this.#inTransaction) return this.transaction((tx) => tx.recordOfferEvents(events));
    for (let i = 0; i < events.length; i += EVENT_BATCH) {
      const rows = events.slice(i, i + EVENT_BATCH).map((e) => ({ seller: this.seller, ...offerEventRow(e) }));
      await this.#db.insertInto('offer_events').values(rows).execute();
    }
    const touched = new Map<string, readonly [string, StateKind]>();
    for (const e of events) touched.set(`${e.kind}\u0000${e.externalId}`, [e.externalId, e.kind]);
    const keys = [...touched.values()];
    // Only the offers just written to are looked at, through the index (seller, external_id, kind, id): the cost
    // is that of their own events, never a scan of the table.
    for (let i = 0; i < keys.length; i += EVENT_BATCH) {
      const values = keys.slice(i, i + EVENT_BATCH).map(([externalId, kind]) => sql`(${externalId}, ${kind})`);
      await sql`DELETE FROM offer_events WHERE id IN (
          SELECT id FROM (
            SELECT id, row_number() OVER (PARTITION BY external_id, kind ORDER BY id DESC) AS n
            FROM offer_events
            WHERE seller = ${this.seller} AND (external_id, kind) IN (VALUES ${sql.join(values)})
          ) AS ranked
          WHERE n > ${OFFER_EVENTS_KEPT})`.execute(this.#db);
    }
  }

  async offerHistory(kind: StateKind, externalId: string, limit: number): Promise<OfferEvent[]> {
    const rows = await this.#db
      .selectFrom('offer_events')
      .selectAll()
      .where('seller', '=', this.seller)
      .where('external_id', '=', externalId)
      .where('kind', '=', kind)
      .orderBy('id', 'desc')
      .limit(Math.max(0, Math.floor(limit)))
      .execute();
    return rows.reverse().map(toOfferEvent);
  }

  async historyKinds(externalId: string): Promise<StateKind[]> {
    const kinds = [...STATE_KINDS];
    // Each table is read by its key, every kind named: no scan of the seller's rows.
    const [events, offers] = await Promise.all([
      this.#db
        .selectFrom('offer_events')
        .select('kind')
        .distinct()
        .where('seller', '=', this.seller)
        .where('external_id', '=', externalId)
        .where('kind', 'in', kinds)
        .execute(),
      this.#db
        .selectFrom('offers')
        .select('kind')
        .where('seller', '=', this.seller)
        .where('kind', 'in', kinds)
        .where('external_id', '=', externalId)
        .execute(),
    ]);
    const found = new Set([...events, ...offers].map((r) => r.kind));
    return STATE_KINDS.filter((k) => found.has(k));
  }

  async searchOffers(query: string, limit = SEARCH_LIMIT_DEFAULT): Promise<OfferSearchHit[]> {
    const q = query.trim().toLowerCase();
    const n = Math.min(SEARCH_LIMIT_MAX, Math.max(0, Math.floor(limit)));
    if (q === '' || n === 0) return [];
    const escaped = q.replace(/[\\%_]/g, (c) => `\\${c}`);
    const inside = `%${escaped}%`;
    const prefix = `${escaped}%`;
    const rows = await sql<{
      kind: string;
      external_id: string;
      title: string | null;
      remote_id: number | null;
      remote_status: string | null;
    }>`SELECT kind, external_id, title, remote_id, remote_status FROM offers
      WHERE seller = ${this.seller}
        AND (lower(external_id) LIKE ${inside} ESCAPE '\\' OR lower(title) LIKE ${inside} ESCAPE '\\')
      ORDER BY CASE
          WHEN lower(external_id) = ${q} THEN 0
          WHEN lower(external_id) LIKE ${prefix} ESCAPE '\\' THEN 1
          WHEN lower(title) LIKE ${prefix} ESCAPE '\\' THEN 2
          ELSE 3 END,
        kind, external_id
      LIMIT ${n}`.execute(this.#db);
    return rows.rows.map((r) => ({
      kind: r.kind as StateKind,
      externalId: r.external_id,
      title: r.title,
      remoteId: r.remote_id === null ? null : Number(r.remote_id),
      remoteStatus: r.remote_status,
    }));
  }

  // capabilities

  async getCapability(name: string): Promise<CapabilityRecord | undefined> {
    const row = await this.#db
      .selectFrom('capabilities')
      .select(['name', 'usable', 'detail', 'learnt_at'])
      .where('seller', '=', this.seller)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toCapabilityRecord(row);
  }

  async setCapability(name: string, usable: boolean, detail: string | null = null): Promise<void> {
    await this.#db
      .insertInto('capabilities')
      .values({ seller: this.seller, name, usable: usable ? 1 : 0, detail, learnt_at: this.#now() })
      .onConflict((oc) =>
        oc.columns(['seller', 'name']).doUpdateSet((eb) => ({
          usable: eb.ref('excluded.usable'),
          detail: eb.ref('excluded.detail'),
          learnt_at: eb.ref('excluded.learnt_at'),
        })),
      )
      .execute();
  }

  async listCapabilities(): Promise<CapabilityRecord[]> {
    const rows = await this.#db
      .selectFrom('capabilities')
      .select(['name', 'usable', 'detail', 'learnt_at'])
      .where('seller', '=', this.seller)
      .orderBy('name')
      .execute();
    return rows.map(toCapabilityRecord);
  }

  // runs

  async runStart(id: string, command: string): Promise<void> {
    await this.#db
      .insertInto('runs')
      .values({
        seller: this.seller,
        id,
        command,
        started_at: this.#now(),
        ended_at: null,
        outcome: 'running',
        counts: '{}',
      })
      .execute();
  }

  async runEnd(
    id: string,
    outcome: NonNullable<RunRecord['outcome']>,
    counts: Readonly<Record<string, number>>,
  ): Promise<void> {
    const res = await this.#db
      .updateTable('runs')
      .set({ ended_at: this.#now(), outcome, counts: JSON.stringify(counts) })
      .where('seller', '=', this.seller)
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw new Error(`state db: no run ${id}`);
  }

  async listRuns(limit: number): Promise<RunRecord[]> {
    const rows = await this.#db
      .selectFrom('runs')
      .select(['id', 'command', 'started_at', 'ended_at', 'outcome', 'counts'])
      .where('seller', '=', this.seller)
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(Math.max(0, Math.floor(limit)))
      .execute();
    return rows.map(toRunRecord);
  }

  // sales

  async recordSales(sales: readonly SaleRecord[]): Promise<void> {
    for (let i = 0; i < sales.length; i += UPSERT_BATCH)
      await this.#db
        .insertInto('sales')
        .values(
          sales.slice(i, i + UPSERT_BATCH).map((s) => ({
            seller: this.seller,
            kind: s.kind,
            external_id: s.externalId,
            seen_at: s.seenAt,
            sale_key: s.key,
            entry: JSON.stringify(s.entry),
          })),
        )
        .onConflict((oc) => oc.columns(['seller', 'sale_key']).doNothing())
        .execute();
  }

  async listSales(sinceMs: number, limit?: number): Promise<SaleRecord[]> {
    const rows = await this.#db
      .selectFrom('sales')
      .select(['kind', 'external_id', 'seen_at', 'sale_key', 'entry'])
      .where('seller', '=', this.seller)
      .where('seen_at', '>=', sinceMs)
      .orderBy('seen_at')
      .orderBy('id')
      .$if(limit !== undefined, (q) => q.limit(Math.max(0, Math.floor(limit ?? 0))))
      .execute();
    return rows.map(toSaleRecord);
  }

  async latestSales(limit: number): Promise<SaleRecord[]> {
    const rows = await this.#db
      .selectFrom('sales')
      .select(['kind', 'external_id', 'seen_at', 'sale_key', 'entry'])
      .where('seller', '=', this.seller)
      .orderBy('seen_at', 'desc')
      .orderBy('id', 'desc')
      .limit(Math.max(0, Math.floor(limit)))
      .execute();
    return rows.map(toSaleRecord);
  }

  async countSales(sinceMs: number): Promise<number> {
    const row = await this.#db
      .selectFrom('sales')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('seller', '=', this.seller)
      .where('seen_at', '>=', sinceMs)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  // meta

  /** The schema version is the migrations' marker (migrations.ts); every other key is this seller's. */
  async getMeta(key: string): Promise<string | undefined> {
    if (key === SCHEMA_VERSION_KEY) return String(await schemaVersion(this.#db, this.#database.dialect));
    const row = await this.#db
      .selectFrom('seller_meta')
      .select('value')
      .where('seller', '=', this.seller)
      .where('key', '=', key)
      .executeTakeFirst();
    return row?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    if (key === SCHEMA_VERSION_KEY) throw new Error(`state db: meta key "${key}" belongs to the migrations`);
    await this.#db
      .insertInto('seller_meta')
      .values({ seller: this.seller, key, value })
      .onConflict((oc) => oc.columns(['seller', 'key']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
      .execute();
  }

  async getSharedMeta(key: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('seller_meta')
      .select('value')
      .where('seller', '=', SHARED_META_SELLER)
      .where('key', '=', `shared.${key}`)
      .executeTakeFirst();
    return row?.value;
  }

  async setSharedMeta(key: string, value: string): Promise<void> {
    await this.#db
      .insertInto('seller_meta')
      .values({ seller: SHARED_META_SELLER, key: `shared.${key}`, value })
      .onConflict((oc) => oc.columns(['seller', 'key']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
      .execute();
  }

  /**
   * The shared value of `key`, written as `value` when none is there yet: of several processes asking at once,
   * every one gets the value the first wrote.
   */
  async claimSharedMeta(key: string, value: string): Promise<string> {
    await this.#db
      .insertInto('seller_meta')
      .values({ seller: SHARED_META_SELLER, key: `shared.${key}`, value })
      .onConflict((oc) => oc.columns(['seller', 'key']).doNothing())
      .execute();
    return (await this.getSharedMeta(key)) ?? value;
  }

  /** The account offers of other sellers of this database (a seller group in PostgreSQL), by fingerprint. */
  async accountMarksOf(sellers: readonly string[]): Promise<AccountMark[]> {
    return accountMarksIn(this.#db, sellers);
  }

  // the seller's lease

  /**
   * Takes the lease when it is free, expired, already this holder's (a renewal) or held by `takeOverFrom`, in one
   * statement (INSERT ... ON CONFLICT DO UPDATE ... WHERE: two holders cannot both win). Expiry is judged by the
   * lease clock (state-database.ts, lease-clock.ts). A lease that changes hands gets a new epoch, and this store
   * fences its later writes with the epoch it won (see journalBegin).
   */
  async acquireLease(claim: LeaseClaim, ttlMs: number, takeOverFrom?: string): Promise<LeaseAttempt> {
    for (let attempt = 1; ; attempt++) {
      const clock = this.#database.clock(this.#leaseClock.now());
      const won = await sql<{ epoch: number; expires_at: number; now_ms: number }>`
        INSERT INTO seller_leases AS l (seller, holder, pid, hostname, scope, epoch, expires_at)
        VALUES (${this.seller}, ${claim.holder}, ${claim.pid}, ${claim.hostname}, ${claim.scope}, 1,
          ${clock} + ${ttlMs})
        ON CONFLICT (seller) DO UPDATE SET holder = excluded.holder, pid = excluded.pid,
          hostname = excluded.hostname, scope = excluded.scope, expires_at = excluded.expires_at,
          epoch = CASE WHEN l.holder = excluded.holder THEN l.epoch ELSE l.epoch + 1 END
        WHERE l.holder = excluded.holder OR l.holder = ${takeOverFrom ?? null} OR l.expires_at <= ${clock}
          ${this.#earlierEra()}
        RETURNING epoch, expires_at, ${clock} AS now_ms`.execute(this.#db);
      const row = won.rows[0];
      if (row) {
        const epoch = Number(row.epoch);
        this.#shared.fence = { holder: claim.holder, epoch };
        return { ok: true, epoch, expiresAt: this.#wallOf(Number(row.expires_at), Number(row.now_ms)) };
      }
      const cur = await this.currentLease();
      if (cur) return { ok: false, heldBy: cur };
      // Released between the two statements: asked again, a bounded number of times.
      if (attempt >= LEASE_ATTEMPTS)
        throw new Error(
          `state db: the lease of ${this.seller || 'this state'} was released ${attempt} times while asked for`,
        );
    }
  }

  /**
   * Renews the lease only while it is still `holder`'s at `epoch`: a holder that was paused while another took the
   * lease (and perhaps let go of it again) learns here that it lost it, and never takes it back unawares.
   */
  async renewLease(holder: string, epoch: number, ttlMs: number): Promise<LeaseRenewal> {
    const clock = this.#database.clock(this.#leaseClock.now());
    const renewed = await sql<{ expires_at: number; now_ms: number }>`
      UPDATE seller_leases SET expires_at = ${clock} + ${ttlMs}
      WHERE seller = ${this.seller} AND holder = ${holder} AND epoch = ${epoch}
      RETURNING expires_at, ${clock} AS now_ms`.execute(this.#db);
    const row = renewed.rows[0];
    if (row) return { ok: true, expiresAt: this.#wallOf(Number(row.expires_at), Number(row.now_ms)) };
    return { ok: false, heldBy: (await this.currentLease()) ?? null };
  }

  /**
   * Lets go of the lease if `holder` still holds it (at `epoch`, when given). The row stays, with no holder and
   * its epoch, so the epoch only ever grows: the next holder's is higher, and a paused holder's renewal is
   * refused. Writes stay fenced.
   */
  async releaseLease(holder: string, epoch?: number): Promise<void> {
    await this.#db
      .updateTable('seller_leases')
      .set({ holder: '', pid: 0, hostname: '', scope: '', expires_at: 0 })
      .where('seller', '=', this.seller)
      .where('holder', '=', holder)
      .$if(epoch !== undefined, (q) => q.where('epoch', '=', epoch ?? 0))
      .execute();
  }

  /** The lease as stored, expired or not; undefined when free (never held, or released). */
  async currentLease(): Promise<WriterLease | undefined> {
    const clock = this.#database.clock(this.#leaseClock.now());
    const row = await this.#db
      .selectFrom('seller_leases')
      .select(['holder', 'pid', 'hostname', 'scope', 'expires_at', clock.as('now_ms')])
      .where('seller', '=', this.seller)
      .where('holder', '<>', '')
      .executeTakeFirst();
    return row && toWriterLease({ ...row, expires_at: this.#wallOf(Number(row.expires_at), Number(row.now_ms)) });
  }

  /**
   * A lease clock reading as epoch ms, for people and logs ("until 12:00:30"): the monotonic clock's counted from
   * this store's now; a wall clock's (PostgreSQL's, a test's) as it is.
   */
  #wallOf(leaseMs: number, leaseNow: number): number {
    if (this.#database.dialect !== 'sqlite' || this.#leaseClock.era === '') return leaseMs;
    return this.#now() + (leaseMs - leaseNow);
  }

  /**
   * sqlite on the machine's monotonic clock: a lease written in another boot (its holder's scope names that boot)
   * is expired, whatever its expiry says, since the clock started again at 0.
   */
  #earlierEra() {
    const era = this.#leaseClock.era;
    if (this.#database.dialect !== 'sqlite' || era === '') return sql``;
    return sql`OR (length(l.scope) > ${era.length + 1} AND substr(l.scope, ${era.length + 1}, 1) = '/'
      AND substr(l.scope, 1, ${era.length}) <> ${era})`;
  }

  // transactions

  /**
   * kysely's transaction: fn gets a store bound to it, and other callers wait for a connection (sqlite has one;
   * PostgreSQL's pool hands out others). Called on a bound store, it nests as a savepoint.
   */
  async transaction<T>(fn: (tx: StateStore) => Promise<T>): Promise<T> {
    if (!this.#inTransaction) return this.#db.transaction().execute((trx) => fn(this.#bound(trx)));
    const name = `sp${++this.#savepoints}`;
    await sql.raw(`SAVEPOINT ${name}`).execute(this.#db);
    try {
      const out = await fn(this);
      await sql.raw(`RELEASE SAVEPOINT ${name}`).execute(this.#db);
      return out;
    } catch (err) {
      await sql.raw(`ROLLBACK TO SAVEPOINT ${name}`).execute(this.#db);
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.#shared.closed) return;
    this.#shared.closed = true;
    if (this.#ownsDatabase) await this.#database.close();
  }
}

function toSaleRecord(r: {
  kind: string;
  external_id: string;
  seen_at: number;
  sale_key: string | null;
  entry: string;
}): SaleRecord {
  return {
    kind: r.kind,
    externalId: r.external_id,
    seenAt: Number(r.seen_at),
    key: r.sale_key,
    entry: JSON.parse(r.entry) as Record<string, unknown>,
  };
}

/** An offers row as a hot statement answered it, typed as the store reads it. */
function offerRow(r: OfferRow): Parameters<typeof toOfferRecord>[0] {
  return r as Parameters<typeof toOfferRecord>[0];
}

/** `SET col = excluded.col` for each column: the patch's columns win, the others keep the stored value. */
function excludedSet(
  eb: ExpressionBuilder<OnConflictUpdateDatabase<Database, 'offers'>, OnConflictTables<'offers'>>,
  columns: readonly (keyof OffersTable)[],
): UpdateObject<OnConflictUpdateDatabase<Database, 'offers'>, OnConflictTables<'offers'>> {
  const set: Record<string, unknown> = {};
  // Each excluded.col has exactly col's type; kysely cannot see that through a loop, hence the cast.
  for (const c of columns) set[c] = eb.ref(`excluded.${c}`);
  return set as UpdateObject<OnConflictUpdateDatabase<Database, 'offers'>, OnConflictTables<'offers'>>;
}
