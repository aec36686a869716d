// What the executor's routes reach of the run: the client, the state db, the journal, the capability gate
// and the report. Each route is a function of this context and its action; none knows the executor.
import type { DesiredOffer, OfferKind } from '../../catalogue/desired-offer.ts';
import type { Logger } from '../../log/logger.ts';
import type { MarketplaceClient, RemoteOffer } from '../../marketplace/marketplace-client.ts';
import type { JournalEntry, JournalOp } from '../../state/records.ts';
import type { StateStore } from '../../state/state-store.ts';
import type { CapabilityGate } from '../../capabilities/gate.ts';
import { MONEY_PRIORITY } from '../plan/money-rank.ts';
import type { EventDraft } from './offer-events.ts';
import type { OfferFields } from '../fields/offer-fields.ts';
import type { OfferOutcome } from '../report/run-report.ts';
import type { SoldEntry } from '../../sales/sold-log.ts';

/**
 * Higher runs first in the request queue, in the order of money at risk (plan/money-rank.ts): archives first, then
 * stock decreases and prices, uploads just before the creates that need them, the rest last.
 */
export const PRIORITY = {
  archive: MONEY_PRIORITY.archive,
  upload: MONEY_PRIORITY.create + 1,
  create: MONEY_PRIORITY.create,
  update: MONEY_PRIORITY.rest,
} as const;

export interface ExecutionContext {
  readonly client: MarketplaceClient;
  readonly store: StateStore;
  readonly logger: Logger;
  readonly capabilities: CapabilityGate;
  /** Creates re-tried after a lookup proved the previous attempt did not land. */
  readonly createAttempts: number;
  /** sha256 of gallery images whose upload failed in this run. */
  readonly failedUploads: ReadonlySet<string>;
  /** The marketplace id of an uploaded image, by sha256. */
  imageId(sha256: string): Promise<number | undefined>;
  /** One outcome per offer; `counts` false for outcomes that were not work (noops), kept out of progress. */
  report(o: OfferOutcome, counts?: boolean): void;
  /** Journals a write, runs it, and settles the journal entry whatever happens. */
  journaled<T>(
    op: JournalOp,
    kind: OfferKind | 'image',
    keys: readonly string[],
    send: (entry: JournalEntry) => Promise<T>,
    opts?: JournaledOptions,
  ): Promise<T>;
  /**
   * Records a successful write: the mapping, what was sent, and fields the server stores differently. `done`: the
   * write's journal entry, settled done in the same commit (journaled with doneWithApplied).
   */
  applied(
    d: DesiredOffer,
    remote: RemoteOffer,
    sent: OfferFields,
    full: OfferFields,
    done?: JournalEntry,
  ): Promise<void>;
  /**
   * Notes a final refusal of this entry (a 4xx about the offer) for its backoff; returns what the report adds
   * ("; not sent again before ..."), or '' when the error was not such a refusal.
   */
  refused(d: DesiredOffer, err: unknown): string;
  /**
   * Adds an event to the offer's story (docs/architecture.md, History). Kept in memory and written in batches
   * with the run's other state writes, never a statement per offer.
   */
  event(e: EventDraft): void;
  /**
   * Stops the run for a write that landed where it was not meant: no write begins after it, and the run ends
   * with `reason` as its error.
   */
  halt(reason: Error): void;
  /** Records an offer the marketplace marks sold, refunded or processing, and notes a new sale for sold.jsonl. */
  /** Returns the sale it noted when the status is new to offersync (a sale since the last run). */
  markLocked(kind: OfferKind, externalId: string, remote: RemoteOffer): Promise<SoldEntry | undefined>;
}

export interface JournaledOptions {
  /**
   * The entry is left "sent" once the write succeeded: the caller settles it with applied(..., entry), so the
   * entry and the offer's record commit together. Until then a crash leaves it "sent", settled on the next start
   * by reading the remote, as for an unknown outcome.
   */
  readonly doneWithApplied?: boolean;
}
