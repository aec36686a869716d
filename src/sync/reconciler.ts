// One reconcile run, level-based like a controller. reconcile() is its steps, in order (docs/architecture.md,
// Data flow): lease, settle the journal, read both sides, plan, accept, execute, report.
import type { AccountMark } from '../state/account-marks.ts';
import { randomBytes } from 'node:crypto';
import type { OfferKind } from '../catalogue/desired-offer.ts';
import { OFFER_KINDS } from '../catalogue/desired-offer.ts';
import type { Logger } from '../log/logger.ts';
import type { MarketplaceClient } from '../marketplace/marketplace-client.ts';
import type { OfferView } from '../state/offer-view.ts';
import type { StateStore } from '../state/state-store.ts';
import type { ImageRecord } from '../state/records.ts';
import type { SendFence } from '../queue/send-fence.ts';
import { acquireWriterLease, type HeldLease } from '../state/writer-lease.ts';
import { readReprobedCapabilities } from '../capabilities/verdicts.ts';
import { catalogueFailures, catalogueWarnings } from './report/catalogue-failures.ts';
import { quarantineNote } from './report/blind-spots.ts';
import type { CatalogueView } from './plan/catalogue-view.ts';
import { describeOutcomes } from './report/describe-outcomes.ts';
import { errorMessage } from '../log/scrubber.ts';
import { type ExecutorOptions, execute } from './execute/executor.ts';
import { guardHeldMessage, priceGuardHeldMessage } from './plan/guard-list.ts';
import { type DownloadImage, fetchImage, mapRemoteImages } from './plan/map-remote-images.ts';
import { recordGuardStop } from './plan/guard-stop.ts';
import { DEFAULT_OFFER_BACKOFF, OfferBackoffs, type OfferBackoffOptions } from './plan/offer-backoff.ts';
import { offerKey } from '../catalogue/identity.ts';
import { type Plan, stoppedByGuard, targetNote } from './plan/plan-actions.ts';
import { plan as makePlan } from './plan/planner.ts';
import type { PlannerOptions } from './plan/planner-options.ts';
import { ClockSamples, incrementalCutoff, loadClockOffsets, saveClockOffsets } from './plan/marketplace-clocks.ts';
import type { DuplicateOffer } from './plan/duplicate-offers.ts';
import { type ReadSnapshotOptions, readSnapshot, type SnapshotResult } from './plan/read-snapshot.ts';
import { type DuplicateRemoval, findDuplicates, removeDuplicates } from './execute/remove-duplicates.ts';
import { forgetListing } from './plan/remote-snapshot.ts';
import { type ExecutedOutcome, runOutcome } from './report/run-outcome.ts';
import { writeRunReport } from './report/run-report-file.ts';
import {
  countOutcomes,
  flatCounts,
  type OfferOutcome,
  oneOutcomePerOffer,
  type RunReport,
} from './report/run-report.ts';
import { settleJournal } from './execute/settle-journal.ts';
import type { Target } from './plan/target.ts';
import type { RunTurn } from './execute/offer-turns.ts';
import type { UnitSale } from '../sales/unit-sale.ts';

export interface ReconcilerSettings {
  readonly planner: Omit<PlannerOptions, 'capabilities' | 'allowMassArchive' | 'allowPriceChange' | 'backoffs' | 'now'>;
  readonly executor: ExecutorOptions;
  /** Per-offer backoff of offers the marketplace refused. Default: 1 min doubling to 6 h, parked after 10. */
  readonly offerBackoff?: OfferBackoffOptions;
  /** A refused capability is probed again after this long. Default 24 h. */
  readonly reprobeAfterMs?: number;
  readonly perPage: number;
  readonly statePath: string;
  /** Sales go to the state db (PostgreSQL state), else to sold.jsonl beside statePath. */
  readonly salesInState?: boolean;
  /** The writer lease's TTL (state.leaseTtlMs). Default 30 s. */
  readonly leaseTtlMs?: number;
  /** Run report files kept beside the state db (state.keepRuns). Default 200. */
  readonly keepReports?: number;
}

export interface ReconcileDeps {
  readonly client: MarketplaceClient;
  readonly store: StateStore;
  readonly loadCatalogue: () => Promise<CatalogueView>;
  readonly logger: Logger;
  readonly settings: ReconcilerSettings;
  /** Requests sent so far (from the queue), for the report. */
  readonly requestCount?: () => number;
  /** Set by a long-running caller (the daemon) that holds and renews the writer lease itself. */
  readonly leaseHeldByCaller?: boolean;
  /**
   * Makes every request of the run pass the writer lease as it leaves the queue (RequestQueue.fence); returns
   * the removal. Without it, writes are fenced only when they are journalled.
   */
  readonly fenceSends?: (fence: SendFence) => () => void;
  /** The clock of backoffs and re-probes. Default Date.now; benches pass a fake one. */
  readonly now?: () => number;
  /** Reads a gallery image at its public url, to find the catalogue's images already uploaded. */
  readonly downloadImage?: DownloadImage;
  /** The account offers of the other sellers of this seller's group, read before each plan (config group). */
  readonly readGroup?: () => Promise<readonly AccountMark[]>;
}

const DEFAULT_IMAGE_DOWNLOAD = { timeoutMs: 30_000, maxBytes: 8 * 1024 * 1024 } as const;

export interface ReconcileOptions {
  readonly command: string;
  /** Plan only: no write, no lease, no journal settling. */
  readonly dryRun: boolean;
  readonly allowMassArchive?: boolean;
  /** --allow-price-change: the price guard does not stop the run. */
  readonly allowPriceChange?: boolean;
  readonly mode?: 'full' | 'incremental';
  readonly onProgress?: (done: number, total: number) => void;
  readonly onPlan?: (plan: Plan) => void;
  /** How long to wait for a writer lease another instance holds (--lock-timeout). Default 0: fail at once. */
  readonly lockTimeoutMs?: number;
  /** Aborted: no further write is started, those in flight finish, and the run ends 'stopped'. */
  readonly signal?: AbortSignal;
  /** The writer lease the caller holds for this run (with leaseHeldByCaller): every request passes it. */
  readonly heldLease?: HeldLease;
  /** Only these offers (plan/reconcile --only, --file, --match). */
  readonly target?: Target;
  /**
   * Called with the plan before the first write: problems returned stop the run there ('aborted', nothing sent).
   * A saved plan's check (reconcile --plan).
   */
  readonly accept?: (plan: Plan) => Promise<readonly string[]> | readonly string[];
  /** This run's turn among runs that share the queue (execute/offer-turns.ts): a later run's plan of an offer wins. */
  readonly turn?: RunTurn;
  /**
   * Joins a run that is working (the daemon's catalogue change planned at once): the journal is that run's, so
   * it is not settled here, only the target's kinds are read, and duplicates are left to that run.
   */
  readonly joining?: boolean;
}

export interface ReconcileResult {
  readonly plan: Plan;
  readonly report: RunReport;
  readonly catalogue: CatalogueView;
}

/** No list could be read at all (wrong key, marketplace down): the run stops before planning. */
export class MarketplaceUnreadableError extends Error {
  override readonly name = 'MarketplaceUnreadableError';
}

/** Local epoch ms when the last complete read of a kind started: the next incremental read's cutoff comes from it. */
const READ_STARTED_KEY = (kind: OfferKind) => `read-started.${kind}`;
const DEFAULT_REPROBE_MS = 24 * 3_600_000;

export function newRunId(): string {
  return `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(3).toString('hex')}`;
}

export async function reconcile(deps: ReconcileDeps, opts: ReconcileOptions): Promise<ReconcileResult> {
  const run = startRun(deps);
  const lease = await takeLease(deps, opts, run.logger);
  const fence = lease ?? (opts.dryRun ? undefined : opts.heldLease);
  // A fence of its own, though the lease is shared: a run that joins another removes only its own when it ends.
  const unfence = fence && deps.fenceSends ? deps.fenceSends(ownFence(fence)) : undefined;
  try {
    const settle = !opts.dryRun && !opts.joining;
    const unsettled = settle ? (await settleJournal(deps.store, deps.client, run.logger)).unsettled : [];
    const sides = await readBothSides(deps, opts, run.logger);
    const planned = await planRun(deps, opts, sides, unsettled);
    const notes = reportNotes(deps.settings, opts, run, planned);
    if (opts.dryRun) return result(planned, finish(run, 'planned', notes.failures, notes.messages, notes.sales));
    const refused = (await opts.accept?.(planned.plan)) ?? [];
    if (refused.length > 0) return refusedResult(run, planned, notes, refused);
    const executed = await executePlan(deps, opts, run, planned, stopSignal(opts.signal, lease), notes);
    return result(planned, await report(deps, run, planned, executed, notes));
  } finally {
    unfence?.();
    await lease?.release();
  }
}

/** This run: its id, its logger, and what its report's duration and requests are counted from. */
interface Run {
  readonly id: string;
  readonly logger: Logger;
  readonly started: number;
  /** The requests sent so far, from the queue; the report counts those sent since the start. */
  readonly requestsSent: () => number;
}

function startRun(deps: ReconcileDeps): Run {
  const started = Date.now();
  const id = newRunId();
  const requestsAtStart = deps.requestCount?.() ?? 0;
  return {
    id,
    logger: deps.logger.child({ runId: id }),
    started,
    requestsSent: () => (deps.requestCount?.() ?? 0) - requestsAtStart,
  };
}

/** Step 1: the writer lease; a dry run takes none, nor a caller that holds it itself (the daemon). */
async function takeLease(deps: ReconcileDeps, opts: ReconcileOptions, logger: Logger): Promise<HeldLease | null> {
  if (opts.dryRun || deps.leaseHeldByCaller) return null;
  return acquireWriterLease(deps.store, {
    ttlMs: deps.settings.leaseTtlMs ?? 30_000,
    waitMs: opts.lockTimeoutMs ?? 0,
    signal: opts.signal,
    onWait: (h) => logger.warn({ holder: h.holder, pid: h.pid, host: h.hostname }, 'writer lease held: waiting for it'),
    onLost: (h) => logger.error({ holder: h?.holder ?? null }, 'lost the writer lease: no further write is started'),
    onRenewError: (err) => logger.warn({ err: errorMessage(err) }, 'writer lease renewal failed: retrying'),
  });
}

/**
 * What a run that joins another reads: its few offers by their own GETs (a list may be long while a first sync
 * creates), else its kinds' lists only.
 */
function joinedRead(opts: ReconcileOptions): Pick<ReadSnapshotOptions, 'kinds' | 'keys'> {
  if (!opts.joining) return {};
  const keys = opts.target?.keys;
  if (keys && keys.length <= JOINED_READS_BY_ID) return { keys };
  return opts.target?.kinds ? { kinds: opts.target.kinds } : {};
}

/** Offers a joining run reads one by one; more, and it reads their kinds' lists (a page holds many). */
const JOINED_READS_BY_ID = 20;

/** The same fence under another identity, so that two runs can hold one lease's fence and drop it apart. */
function ownFence(fence: SendFence): SendFence {
  return { pass: () => fence.pass(), closed: fence.closed };
}

/** No further write starts once the caller stops the run or the lease is lost. */
function stopSignal(signal: AbortSignal | undefined, lease: HeldLease | null): AbortSignal | undefined {
  const stop = [signal, lease?.lost].filter((s): s is AbortSignal => s !== undefined);
  return stop.length > 0 ? AbortSignal.any(stop) : undefined;
}

interface BothSides {
  readonly catalogue: CatalogueView;
  readonly snap: SnapshotResult;
  readonly state: OfferView;
  /** Local epoch ms when the lists' read started. */
  readonly readStartedAt: number;
}

/** Step 3: the catalogue and the remote lists at once, with the state they are matched against. */
async function readBothSides(deps: ReconcileDeps, opts: ReconcileOptions, logger: Logger): Promise<BothSides> {
  const { store, client, settings } = deps;
  // Read a page at a time as asked, never all held at once (100,000 records were a third of a run's memory).
  const state = await store.offerView();
  const offsets = await loadClockOffsets(store);
  const cutoffs: Partial<Record<OfferKind, number>> = {};
  for (const kind of OFFER_KINDS) {
    const started = Number(await store.getMeta(READ_STARTED_KEY(kind)));
    if (Number.isFinite(started) && started > 0) cutoffs[kind] = incrementalCutoff(started, offsets);
  }
  const readStartedAt = clockOf(deps)();
  const [catalogue, snap] = await Promise.all([
    deps.loadCatalogue(),
    readSnapshot({
      client,
      state,
      mode: opts.mode ?? 'full',
      cutoffs,
      perPage: settings.perPage,
      logger,
      ...joinedRead(opts),
    }),
  ]);
  if (OFFER_KINDS.every((k) => !snap.snapshot.kinds[k].complete)) {
    throw new MarketplaceUnreadableError(
      `cannot read the marketplace's offer lists (${snap.snapshot.kinds.account.error ?? 'unknown error'}); ` +
        `nothing was sent`,
    );
  }
  return { catalogue, snap, state, readStartedAt };
}

interface Planned {
  readonly plan: Plan;
  readonly catalogue: CatalogueView;
  readonly snap: SnapshotResult;
  readonly readStartedAt: number;
  readonly backoffs: OfferBackoffs;
  /** External_ids a complete full list showed more than once, sorted (plan/duplicate-offers.ts). */
  readonly duplicates: readonly DuplicateOffer[];
}

const clockOf = (deps: ReconcileDeps): (() => number) => deps.now ?? Date.now;
const reprobeAfterMsOf = (settings: ReconcilerSettings): number => settings.reprobeAfterMs ?? DEFAULT_REPROBE_MS;

/** Step 4: the plan, from both sides and what the planner reads of the state db besides the offers. */
async function planRun(
  deps: ReconcileDeps,
  opts: ReconcileOptions,
  { catalogue, snap, state, readStartedAt }: BothSides,
  unsettled: readonly string[],
): Promise<Planned> {
  const { store, settings } = deps;
  const unconfirmed = new Set([...snap.snapshot.unconfirmed, ...unsettled]);
  const now = clockOf(deps);
  const backoffs = await OfferBackoffs.load(store, settings.offerBackoff ?? DEFAULT_OFFER_BACKOFF, now);
  // What the planner reads besides the offers is read before it starts: the planner itself does no I/O.
  const found = await mapImages(deps, catalogue, snap, opts.dryRun);
  const uploadedImages = new Map([...(await store.listImages()), ...found].map((i) => [i.sha256, i.remoteId]));
  const interruptedCreates = opts.dryRun ? await interruptedCreateKeys(store) : undefined;
  // Read as the capability gate will: a refusal older than reprobeAfterMs is tried again.
  const capabilities = await readReprobedCapabilities(store, now, reprobeAfterMsOf(settings));
  const group = deps.readGroup ? await deps.readGroup() : [];
  const plan = await makePlan({
    group,
    catalogue,
    state,
    remote: { ...snap.snapshot, unconfirmed },
    uploadedImages,
    // A dry run does not settle the journal: what a crash left unfinished is looked up first, not assumed new.
    interruptedCreates,
    options: {
      ...settings.planner,
      capabilities,
      backoffs: backoffs.all(),
      now: now(),
      allowMassArchive: opts.allowMassArchive ?? false,
      allowPriceChange: opts.allowPriceChange ?? false,
    },
    ...(opts.target ? { target: opts.target } : {}),
    // The listing is forgotten below anyway: let go of each listed offer as it is matched, not after the plan.
    spendListing: true,
  });
  opts.onPlan?.(plan);
  const duplicates = await findDuplicates(snap.snapshot, state, store);
  forgetListing(snap.snapshot);
  return { plan, catalogue, snap, readStartedAt, backoffs, duplicates };
}

/**
 * The gallery the marketplace already holds (plan/map-remote-images.ts), kept in the state db unless the run is dry. A
 * failure costs only the mapping: images are then uploaded as new ones, as before.
 */
async function mapImages(
  deps: ReconcileDeps,
  catalogue: CatalogueView,
  snap: SnapshotResult,
  dryRun: boolean,
): Promise<readonly ImageRecord[]> {
  const { store, client, logger } = deps;
  try {
    const download = deps.downloadImage ?? fetchImage(DEFAULT_IMAGE_DOWNLOAD);
    const now = clockOf(deps);
    const mapped = await mapRemoteImages(
      { client, store, logger, download, now },
      catalogue.offers,
      snap.snapshot.kinds.account,
    );
    if (!dryRun) for (const rec of mapped.records) await store.putImage(rec);
    return mapped.records;
  } catch (err) {
    logger.warn({ err: errorMessage(err) }, 'could not map the gallery on the marketplace: new images are uploaded');
    return [];
  }
}

async function interruptedCreateKeys(store: StateStore): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const e of await store.journalUnfinished()) {
    if ((e.op === 'create' || e.op === 'recreate') && e.kind !== 'image')
      for (const k of e.keys) keys.add(offerKey(e.kind, k));
  }
  return keys;
}

/** What the report says besides the executor's outcomes, known once the plan is made. */
interface ReportNotes {
  /** The catalogue's errors, as invalid offers. */
  readonly failures: readonly OfferOutcome[];
  /** What stopped the run, when a guard did (kept for status until a run gets through). */
  readonly guardMessages: readonly string[];
  readonly messages: readonly string[];
  readonly sales: readonly UnitSale[];
}

function reportNotes(settings: ReconcilerSettings, opts: ReconcileOptions, run: Run, planned: Planned): ReportNotes {
  const { plan } = planned;
  const guardMessages: string[] = [];
  if (plan.priceGuard.tripped && plan.priceGuard.message) {
    const held = opts.dryRun ? undefined : priceGuardHeldMessage(plan.priceGuard, settings.statePath, run.id);
    guardMessages.push(plan.priceGuard.message, ...(held ? [held] : []));
  }
  if (plan.guard.tripped && plan.guard.message) {
    const held = opts.dryRun ? undefined : guardHeldMessage(plan.guard, settings.statePath, run.id);
    guardMessages.push(plan.guard.message, ...(held ? [held] : []));
  }
  const note = targetNote(plan);
  const quarantined = quarantineNote(planned.catalogue.quarantinedFiles);
  return {
    failures: catalogueFailures(planned.catalogue.problems, opts.target),
    guardMessages,
    messages: [
      ...guardMessages,
      ...(note ? [note] : []),
      ...plan.archiveSuppressed,
      ...plan.warnings,
      ...catalogueWarnings(planned.catalogue.problems, opts.target),
      ...(quarantined ? [quarantined] : []),
    ],
    sales: plan.soldCounts.flatMap((n) => (n.sale ? [n.sale] : [])),
  };
}

/** Step 5, refused: a saved plan's check found differences, so nothing is sent and the run is aborted. */
function refusedResult(run: Run, planned: Planned, notes: ReportNotes, refused: readonly string[]): ReconcileResult {
  const noWrites: Plan = { ...planned.plan, actions: [] };
  return {
    plan: noWrites,
    catalogue: planned.catalogue,
    report: finish(run, 'aborted', notes.failures, [...refused, ...notes.messages]),
  };
}

interface Executed {
  readonly outcomes: readonly OfferOutcome[];
  readonly outcome: ExecutedOutcome;
  /** What the run did about duplicated offers. */
  readonly duplicates: Pick<DuplicateRemoval, 'messages' | 'covered'>;
}

/** Step 6: the plan carried out, the backoffs, the clocks learnt and (a finished run) where the lists were read. */
async function executePlan(
  deps: ReconcileDeps,
  opts: ReconcileOptions,
  run: Run,
  { plan, snap, readStartedAt, backoffs, duplicates }: Planned,
  signal: AbortSignal | undefined,
  notes: ReportNotes,
): Promise<Executed> {
  const { store, client, settings } = deps;
  await store.runStart(run.id, opts.command);
  const clocks = new ClockSamples();
  try {
    const outcomes = await execute(plan, {
      client,
      store,
      logger: run.logger,
      runId: run.id,
      statePath: settings.statePath,
      ...(settings.salesInState ? { salesInState: true } : {}),
      options: settings.executor,
      onProgress: opts.onProgress,
      signal,
      backoffs,
      reprobeAfterMs: reprobeAfterMsOf(settings),
      now: clockOf(deps),
      clocks,
      ...(opts.turn ? { turn: opts.turn } : {}),
    });
    await backoffs.save();
    await saveClockOffsets(store, clocks.offsets);
    // After the plan's own writes, under the same lease and fence: the copies offersync made go.
    const removal =
      duplicates.length > 0 && !stoppedByGuard(plan) && !opts.joining
        ? await removeDuplicates(duplicates, { client, store, runId: run.id, logger: run.logger, signal })
        : { messages: [], covered: [], archived: 0, failed: 0 };
    const outcome = runOutcome(plan, signal?.aborted === true, [...outcomes, ...notes.failures]);
    // A targeted run saw every offer but acted on some: the next incremental run must still see the rest.
    if (outcome !== 'aborted' && outcome !== 'stopped' && !plan.target) {
      for (const kind of OFFER_KINDS)
        if (snap.snapshot.kinds[kind].complete) await store.setMeta(READ_STARTED_KEY(kind), String(readStartedAt));
    }
    return { outcomes, outcome, duplicates: removal };
  } catch (err) {
    run.logger.error({ err: errorMessage(err) }, 'run failed');
    await store.runEnd(run.id, 'failed', {});
    throw err;
  }
}

/** Step 7: the run's report, recorded in the state db and beside it; a guard's stop kept or cleared. */
async function report(
  deps: ReconcileDeps,
  run: Run,
  { plan }: Planned,
  { outcomes, outcome, duplicates }: Executed,
  notes: ReportNotes,
): Promise<RunReport> {
  const { store, settings } = deps;
  const done = finish(
    run,
    outcome,
    [...describeOutcomes(outcomes, plan), ...notes.failures],
    withDuplicateMessages(notes.messages, duplicates),
    notes.sales,
  );
  await store.runEnd(run.id, outcome, flatCounts(done.counts));
  writeRunReport(settings.statePath, done, settings.keepReports, run.logger);
  if (stoppedByGuard(plan))
    await recordGuardStop(store, {
      runId: run.id,
      at: new Date(run.started).toISOString(),
      messages: notes.guardMessages,
    });
  else if (outcome !== 'stopped') await recordGuardStop(store, null);
  const pruned = await store.pruneHistory();
  if (pruned.runs + pruned.journal > 0) run.logger.debug(pruned, 'state db: old runs and journal entries pruned');
  return done;
}

/** The duplicate step's lines replace the planner's bare "listed more than once" warnings of the same offers. */
function withDuplicateMessages(
  messages: readonly string[],
  duplicates: Pick<DuplicateRemoval, 'messages' | 'covered'>,
): readonly string[] {
  if (duplicates.covered.length === 0) return messages;
  const heads = new Set(
    duplicates.covered.map((key) => {
      const [kind, ...id] = key.split(':');
      return `the marketplace lists ${kind} '${id.join(':')}'`;
    }),
  );
  const said = (m: string) => m.includes(' more than once') && heads.has(m.slice(0, m.indexOf(' more than once')));
  return [...messages.filter((m) => !said(m)), ...duplicates.messages];
}

function result(planned: Planned, report: RunReport): ReconcileResult {
  return { plan: planned.plan, catalogue: planned.catalogue, report };
}

function finish(
  run: Run,
  outcome: RunReport['outcome'],
  outcomes: readonly OfferOutcome[],
  messages: readonly string[],
  sales: readonly UnitSale[] = [],
): RunReport {
  // Each offer once, whatever went wrong: a duplicated external_id is one invalid offer, not two failures.
  const one = oneOutcomePerOffer(outcomes);
  return {
    sales,
    runId: run.id,
    outcome,
    outcomes: one,
    counts: countOutcomes(one),
    requests: run.requestsSent(),
    durationMs: Date.now() - run.started,
    messages,
  };
}
