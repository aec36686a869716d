import type { OfferView } from './offer-view.ts';
import type {
  CapabilityRecord,
  ImageRecord,
  JournalEntry,
  JournalOp,
  JournalState,
  OfferRecord,
  RunRecord,
  LeaseClaim,
  StateKind,
  WriterLease,
} from './records.ts';

/** The answer to a lease request: held until expiresAt (the store's clock), or who holds it instead. */
export type LeaseAttempt =
  | { readonly ok: true; readonly expiresAt: number }
  | { readonly ok: false; readonly heldBy: WriterLease };

/** A change to one offer row; unspecified fields keep their value (or their default on insert). */
export type OfferRecordPatch = Partial<Omit<OfferRecord, 'kind' | 'externalId' | 'updatedAt'>>;

/**
 * The state db as offersync uses it. The sqlite implementation (sqlite-state-store.ts) is synchronous
 * underneath (better-sqlite3), so these methods are synchronous too: they are fast, local and transactional.
 */
export interface StateStore {
  // offers
  getOffer(kind: StateKind, externalId: string): OfferRecord | undefined;
  listOffers(kind?: StateKind): OfferRecord[];
  /** The offers as a run's planning reads them (offer-view.ts). */
  offerView(): OfferView;
  upsertOffer(kind: StateKind, externalId: string, patch: OfferRecordPatch): OfferRecord;
  deleteOffer(kind: StateKind, externalId: string): void;
  /** Many upserts in one transaction (adopting thousands of offers). */
  upsertOffers(rows: readonly { kind: StateKind; externalId: string; patch: OfferRecordPatch }[]): void;

  // images
  getImage(sha256: string): ImageRecord | undefined;
  putImage(rec: ImageRecord): void;
  listImages(): ImageRecord[];

  // journal
  journalBegin(entry: {
    runId: string;
    op: JournalOp;
    kind: JournalEntry['kind'];
    keys: readonly string[];
  }): JournalEntry;
  journalSet(id: number, state: JournalState, error?: string | null): void;
  /** Entries still pending or sent: settled at start by reading the remote. */
  journalUnfinished(): JournalEntry[];
  /**
   * Retention, run after each run: keeps the newest runs (state.keepRuns) and the settled (done, failed)
   * journal entries of those runs. Unfinished entries are never pruned: they are settled at the next start.
   */
  pruneHistory(): { runs: number; journal: number };

  // capabilities
  getCapability(name: string): CapabilityRecord | undefined;
  setCapability(name: string, usable: boolean, detail?: string | null): void;
  listCapabilities(): CapabilityRecord[];

  // runs
  runStart(id: string, command: string): void;
  runEnd(id: string, outcome: NonNullable<RunRecord['outcome']>, counts: Readonly<Record<string, number>>): void;
  listRuns(limit: number): RunRecord[];

  // meta: schema version, list watermarks, anything small
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;

  // the writer lease (docs/architecture.md, Lease); writer-lease.ts builds waiting and the heartbeat on these two
  /**
   * Takes or renews the lease for ttlMs; refused while another holder's lease is unexpired, unless that
   * holder is `takeOverFrom` (a holder proven dead). Judged by the store's own clock.
   */
  acquireLease(claim: LeaseClaim, ttlMs: number, takeOverFrom?: string): LeaseAttempt;
  /** Lets go of the lease if `holder` still holds it. */
  releaseLease(holder: string): void;

  /** Runs fn in one transaction. */
  transaction<T>(fn: () => T): T;
  close(): void;
}
