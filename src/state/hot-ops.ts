// The state writes every marketplace write makes (journal it, settle it, record the offer), as data: the group
// commit (group-commit.ts) gathers those asked for at once and the database runs them together, with statements
// prepared once and no query built per write (sqlite-hot-statements.ts, postgres-hot-statements.ts).
import type { Selectable } from 'kysely';
import type { JournalState } from './records.ts';
import type { JournalTable, OfferEventsTable, OffersTable } from './db-schema.ts';

/** The lease a journal row must still be written under (kysely-state-store.ts, journalBegin). */
export interface HotFence {
  readonly holder: string;
  readonly epoch: number;
}

/** A journal row to insert; `fence` set: only while the seller's lease is still that holder's, unexpired. */
export interface JournalInsertOp {
  readonly op: 'journal-insert';
  readonly row: Omit<Selectable<JournalTable>, 'id'>;
  readonly fence: HotFence | null;
  /** sqlite's lease clock at the call (PostgreSQL judges by its own clock). */
  readonly leaseNow: number;
}

export interface JournalSetOp {
  readonly op: 'journal-set';
  readonly id: number;
  readonly state: JournalState;
  /** undefined keeps the stored error; null clears it. */
  readonly error: string | null | undefined;
  readonly at: number;
}

export interface OfferGetOp {
  readonly op: 'offer-get';
  readonly kind: string;
  readonly externalId: string;
}

/** Inserts the row, or updates `set` of the stored one (the columns of the patch, and updated_at). */
export interface OfferUpsertOp {
  readonly op: 'offer-upsert';
  readonly row: Selectable<OffersTable>;
  readonly set: readonly (keyof OffersTable)[];
}

/** The upsert an offer-apply makes of the row stored (undefined: none yet). */
export type ApplyRowOf = (stored: OfferRow | undefined) => Omit<OfferUpsertOp, 'op'>;

/**
 * A write's last step as one op: its journal row settled done (when `done` is set), the offer read and upserted
 * from what was read, all in the batch's one commit: one batch where three would follow one another.
 */
export interface OfferApplyOp {
  readonly op: 'offer-apply';
  readonly kind: string;
  readonly externalId: string;
  readonly done: { readonly id: number; readonly at: number } | null;
  /** Pure: it may run again, when a failed batch is retried op by op. */
  readonly rowOf: ApplyRowOf;
}

/**
 * What an offer-apply answers: whether the offer row was written, journal rows settled. Not the row: its only
 * caller made it, and reading it back would cost every write.
 */
export interface OfferApplied {
  readonly written: boolean;
  readonly settled: number;
}

/** An offer event row as the hot statements insert it, in OFFER_EVENT_COLUMNS' order of fields. */
export type OfferEventRow = Omit<Selectable<OfferEventsTable>, 'id'>;

/**
 * Events appended to the offers' stories in their order, then each offer they touch pruned to its newest `kept`:
 * all of them or none (the op fails whole).
 */
export interface OfferEventsOp {
  readonly op: 'offer-events';
  readonly rows: readonly OfferEventRow[];
  readonly kept: number;
}

export type HotOp = JournalInsertOp | JournalSetOp | OfferGetOp | OfferUpsertOp | OfferApplyOp | OfferEventsOp;

/** An offers row as OFFER_COLUMNS reads it. */
export type OfferRow = Readonly<Record<string, unknown>>;

/**
 * What each op answers: the inserted journal row's id, at least (undefined: fenced), rows updated, the row read or
 * upserted, the events inserted.
 */
export type HotAnswer<O extends HotOp> = O extends JournalInsertOp
  ? Pick<Selectable<JournalTable>, 'id'> | undefined
  : O extends JournalSetOp
    ? number
    : O extends OfferApplyOp
      ? OfferApplied
      : O extends OfferEventsOp
        ? number
        : OfferRow | undefined;

/** Runs a batch of one seller's ops in their order, committed before it answers; one answer per op. */
export interface HotStatements {
  run(seller: string, ops: readonly HotOp[]): Promise<unknown[]>;
}
