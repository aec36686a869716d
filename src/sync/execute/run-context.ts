// The ExecutionContext of one executor run: its journal, its outcomes and progress, and the sales it saw.
import type { DesiredOffer, OfferKind } from '../../catalogue/desired-offer.ts';
import type { Logger } from '../../log/logger.ts';
import type { MarketplaceClient, RemoteOffer } from '../../marketplace/marketplace-client.ts';
import type { JournalEntry, JournalOp, OfferEventInput, OfferRecord } from '../../state/records.ts';
import type { OfferRecordPatch, StateStore } from '../../state/state-store.ts';
import { CapabilityGate } from '../../capabilities/gate.ts';
import { reprobingMemory } from '../../capabilities/reprobe.ts';
import { isOutcomeUnknown, RunStoppedError } from '../run-stopped.ts';
import { errorMessage } from '../../log/scrubber.ts';
import type { ExecutionContext, JournaledOptions } from './execution-context.ts';
import { lossyFields } from '../fields/lossy.ts';
import { type ClockSamples, stampOfWrite } from '../plan/marketplace-clocks.ts';
import { type EventDraft, seen } from './offer-events.ts';
import { type OfferFields, offerTitle } from '../fields/offer-fields.ts';
import type { OfferOutcome } from '../report/run-report.ts';
import type { OfferBackoffs } from '../plan/offer-backoff.ts';
import { statusSaleEntry } from '../../sales/sale-entry.ts';
import type { SoldEntry } from '../../sales/sold-log.ts';

export interface RunContextDeps {
  readonly client: MarketplaceClient;
  readonly store: StateStore;
  readonly logger: Logger;
  readonly runId: string;
  readonly createAttempts: number;
  readonly onProgress?: (done: number, total: number) => void;
  /** Once aborted, journaled() refuses to begin a write. */
  readonly signal?: AbortSignal;
  /** Per-offer backoff: refusals are noted, successes forget them. Default: none kept. */
  readonly backoffs?: OfferBackoffs;
  /** A refused capability older than this is probed again. Default: never. */
  readonly reprobeAfterMs?: number;
  /** Default Date.now. */
  readonly now?: () => number;
  /** Where the stamps of the run's writes teach the marketplace's clocks (plan/marketplace-clocks.ts). */
  readonly clocks?: ClockSamples;
}

/**
 * Events written per statement batch while writes are in flight: a few statements per this many offers, so the
 * story costs no round trip per offer. Between, they wait in memory (a crash loses at most these).
 */
export const EVENT_BATCH = 256;

export class RunContext implements ExecutionContext {
  readonly client: MarketplaceClient;
  readonly logger: Logger;
  readonly capabilities: CapabilityGate;
  readonly createAttempts: number;
  readonly failedUploads = new Set<string>();
  readonly outcomes: OfferOutcome[] = [];
  readonly sold: SoldEntry[] = [];
  /** Offers and images the run will report on, for progress. */
  total = 0;
  private done = 0;

  constructor(private readonly deps: RunContextDeps) {
    this.client = deps.client;
    this.logger = deps.logger;
    this.createAttempts = deps.createAttempts;
    this.capabilities = new CapabilityGate(
      reprobingMemory(deps.store, deps.now ?? Date.now, deps.reprobeAfterMs ?? Number.POSITIVE_INFINITY),
    );
  }

  /** The run's store, or the transaction `inTransaction` runs in. */
  get store(): StateStore {
    return this.#tx ?? this.deps.store;
  }

  #tx: StateStore | undefined;
  readonly #events: OfferEventInput[] = [];
  /** The batches written so far, in order: each waits for the one before (ids grow in the order events happened). */
  #writing: Promise<void> = Promise.resolve();

  /**
   * Runs fn with `store` bound to one transaction of the run's store. Used where the executor records many
   * offers before any request goes out, so nothing else of the run uses the context meanwhile.
   */
  async inTransaction<T>(fn: () => Promise<T>): Promise<T> {
    // A batch still being written holds the connection a sqlite transaction would wait for: finished first.
    await this.#writing;
    return this.deps.store.transaction(async (tx) => {
      this.#tx = tx;
      try {
        const out = await fn();
        // The events of what fn recorded commit with it (and those waiting from before, in their order).
        await tx.recordOfferEvents(this.#events.splice(0));
        return out;
      } finally {
        this.#tx = undefined;
      }
    });
  }

  event(e: EventDraft): void {
    // Written out, not spread: see docs/architecture.md, Memory.
    this.#events.push({
      kind: e.kind,
      externalId: e.externalId,
      runId: this.deps.runId,
      at: (this.deps.now ?? Date.now)(),
      type: e.type,
      route: e.route,
      changes: e.changes,
      quantity: e.quantity,
      detail: e.detail,
      answer: e.answer,
    });
    if (this.#tx === undefined && this.#events.length >= EVENT_BATCH) void this.#write();
  }

  /** Writes the events still in memory; the executor calls it when it is done, whatever happened. */
  async flushEvents(): Promise<void> {
    if (this.#events.length > 0) void this.#write();
    await this.#writing;
  }

  #write(): Promise<void> {
    const batch = this.#events.splice(0);
    this.#writing = this.#writing
      .then(() => this.deps.store.recordOfferEvents(batch))
      .catch((err: unknown) =>
        // The story is the seller's memory, not the sync: a write of it that fails does not fail the run.
        this.logger.warn({ events: batch.length, err: errorMessage(err) }, 'offer history: events not recorded'),
      );
    return this.#writing;
  }

  async imageId(sha256: string): Promise<number | undefined> {
    return (await this.store.getImage(sha256))?.remoteId;
  }

  report(o: OfferOutcome, counts = true): void {
    this.outcomes.push(o);
    if (counts) {
      this.done++;
      this.deps.onProgress?.(this.done, this.total);
    }
    if (o.outcome === 'failed')
      this.logger.warn({ kind: o.kind, externalId: o.externalId, file: o.file, err: o.message }, 'offer failed');
  }

  readonly #halt = new AbortController();

  halt(reason: Error): void {
    if (this.#halt.signal.aborted) return;
    this.logger.error({ err: reason.message }, 'run stopped: no further write is sent');
    this.#halt.abort(reason);
  }

  /** Aborted once halt() is called. */
  get haltSignal(): AbortSignal {
    return this.#halt.signal;
  }

  /** What halt() was given, once called. */
  get halted(): Error | undefined {
    return this.#halt.signal.aborted ? (this.#halt.signal.reason as Error) : undefined;
  }

  async journaled<T>(
    op: JournalOp,
    kind: OfferKind | 'image',
    keys: readonly string[],
    send: (entry: JournalEntry) => Promise<T>,
    opts: JournaledOptions = {},
  ): Promise<T> {
    if (this.deps.signal?.aborted) throw new RunStoppedError(this.deps.signal.reason);
    if (this.#halt.signal.aborted) throw new RunStoppedError(this.#halt.signal.reason);
    // In as sent: the request leaves as soon as the row is committed.
    const entry = await this.store.journalBegin({ runId: this.deps.runId, op, kind, keys, state: 'sent' });
    let out: T;
    try {
      out = await send(entry);
    } catch (err) {
      // An unknown outcome stays "sent": the next start settles it by reading the remote.
      if (!isOutcomeUnknown(err)) await this.store.journalSet(entry.id, 'failed', errorMessage(err));
      throw err;
    }
    if (!opts.doneWithApplied) await this.store.journalSet(entry.id, 'done');
    return out;
  }

  refused(d: DesiredOffer, err: unknown): string {
    return this.deps.backoffs?.refused(d, err) ?? '';
  }

  async applied(
    d: DesiredOffer,
    remote: RemoteOffer,
    sent: OfferFields,
    full: OfferFields,
    done?: JournalEntry,
  ): Promise<void> {
    this.deps.backoffs?.succeeded(d.kind, d.externalId);
    // The stored record the patch was made from (the last, should the batch have been retried).
    let read: OfferRecord | undefined;
    await this.store.applyOffer(
      d.kind,
      d.externalId,
      (prev) => {
        read = prev;
        return appliedPatch(d, remote, sent, full, prev);
      },
      done?.id,
    );
    const prev = read;
    // Only a write that sent something stamped the offer now; an adoption's stamp is as old as the offer.
    if (Object.keys(sent).length === 0) return;
    const stamp = stampOfWrite(!(prev !== undefined && prev.remoteId === remote.id), remote, prev?.remoteUpdatedAt);
    if (stamp) this.deps.clocks?.note(stamp.clock, stamp.stampMs, this.deps.now?.() ?? Date.now());
  }

  async markLocked(kind: OfferKind, externalId: string, remote: RemoteOffer): Promise<SoldEntry | undefined> {
    const prev = await this.store.getOffer(kind, externalId);
    let sale: SoldEntry | undefined;
    if (prev?.remoteStatus !== remote.status && remote.status) {
      const marks = `the marketplace marks it ${remote.status}`;
      this.event(seen(kind, externalId, remote.status === 'sold' ? 'sold' : 'marked', marks));
      const seenAt = new Date(this.deps.now?.() ?? Date.now());
      sale = statusSaleEntry(kind, externalId, { ...remote, status: remote.status }, prev?.lastApplied ?? null, seenAt);
      this.sold.push(sale);
    }
    await this.store.upsertOffer(kind, externalId, { remoteId: remote.id, remoteStatus: remote.status ?? null });
    return sale;
  }
}

/** The offer's record once `sent` was applied (`remote` answered), made from the one stored before. */
function appliedPatch(
  d: DesiredOffer,
  remote: RemoteOffer,
  sent: OfferFields,
  full: OfferFields,
  prev: OfferRecord | undefined,
): OfferRecordPatch {
  const same = prev !== undefined && prev.remoteId === remote.id;
  const base = same ? prev.lastApplied : null;
  // The count of units sold the stock is sent against: units sold after it explain a lower stock later.
  const soldNow = remote.soldCount ?? (same ? prev.soldCount : null) ?? (same ? null : 0);
  const sold =
    d.kind === 'account'
      ? {}
      : !same
        ? { soldCount: soldNow, soldCountAtSend: soldNow }
        : 'stock' in sent
          ? { soldCountAtSend: soldNow }
          : {};
  const lastApplied: Record<string, unknown> = {};
  for (const [f, v] of Object.entries(full)) {
    if (f in sent) lastApplied[f] = sent[f as keyof OfferFields];
    else if (base && f in base) lastApplied[f] = base[f];
    else lastApplied[f] = v; // not sent and never applied: it matched the live value
  }
  return {
    remoteId: remote.id,
    lastApplied,
    credentialsHmac: d.kind === 'account' ? (d.credentialsHmac ?? null) : null,
    loginFingerprint: d.kind === 'account' ? (d.loginFingerprint ?? null) : null,
    imageHashes: d.kind === 'account' ? d.images.map((i) => i.sha256) : [],
    contentHash: d.hash,
    remoteStatus: remote.status ?? sent.status ?? null,
    remoteUpdatedAt: remote.updatedAt ?? null,
    managed: true,
    sourceFile: d.source.file,
    lossyFields: lossyFields(sent, remote, same ? prev.lossyFields : []),
    title: offerTitle(full),
    ...sold,
  };
}
