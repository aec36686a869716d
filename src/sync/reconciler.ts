// One reconcile run, level-based like a controller: read both sides, plan, execute, report.
import { randomBytes } from 'node:crypto';
import { fileLineColumn } from '../catalogue/catalogue-problem.ts';
import type { DesiredOffer, OfferKind } from '../catalogue/desired-offer.ts';
import { OFFER_KINDS } from '../catalogue/desired-offer.ts';
import type { Logger } from '../log/logger.ts';
import type { MarketplaceClient } from '../marketplace/marketplace-client.ts';
import type { StateStore } from '../state/state-store.ts';
import { acquireWriterLease } from '../state/writer-lease.ts';
import { readCapabilities, reprobingMemory } from './capabilities.ts';
import { errorMessage } from './errors.ts';
import { type ExecutorOptions, execute } from './executor.ts';
import { DEFAULT_OFFER_BACKOFF, OfferBackoffs, type OfferBackoffOptions } from './offer-backoff.ts';
import { offerKey } from './offer-key.ts';
import { type Plan, stoppedByGuard, targetNote } from './plan.ts';
import { plan as makePlan, type PlannerOptions } from './planner.ts';
import { readSnapshot } from './read-snapshot.ts';
import { forgetListing } from './remote-snapshot.ts';
import {
  countOutcomes,
  flatCounts,
  NEEDS_ATTENTION,
  type OfferOutcome,
  oneOutcomePerOffer,
  type RunReport,
} from './run-report.ts';
import { describeOutcomes } from './describe-outcomes.ts';
import { writeRunReport } from './run-report-file.ts';
import { guardHeldMessage, priceGuardHeldMessage } from './guard-list.ts';
import { recordGuardStop } from './guard-stop.ts';
import type { UnitSale } from './unit-sale.ts';
import { settleJournal } from './settle-journal.ts';
import { isTargeted, type Target, targetTest } from './target.ts';

/** What the reconciler needs of the catalogue: the loader's snapshot, as far as planning goes. */
export interface CatalogueView {
  readonly offers: readonly DesiredOffer[];
  readonly complete: boolean;
  readonly quarantinedFiles: readonly string[];
  readonly invalidOffers: readonly { readonly kind: OfferKind; readonly externalId: string; readonly file: string }[];
  readonly problems: readonly {
    readonly severity: 'error' | 'warning';
    readonly kind?: OfferKind;
    readonly file: string;
    readonly line?: number;
    readonly pointer?: string;
    readonly externalId?: string;
    readonly field?: string;
    readonly message: string;
  }[];
}

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
  /** The clock of backoffs and re-probes. Default Date.now; benches pass a fake one. */
  readonly now?: () => number;
}

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
  /** Only these offers (plan/reconcile --only, --file, --match). */
  readonly target?: Target;
  /**
   * Called with the plan before the first write: problems returned stop the run there ('aborted', nothing sent).
   * A saved plan's check (reconcile --plan).
   */
  readonly accept?: (plan: Plan) => Promise<readonly string[]> | readonly string[];
}

export interface ReconcileResult {
  readonly plan: Plan;
  readonly report: RunReport;
  readonly catalogue: CatalogueView;
}

async function interruptedCreateKeys(store: StateStore): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const e of await store.journalUnfinished()) {
    if ((e.op === 'create' || e.op === 'recreate') && e.kind !== 'image')
      for (const k of e.keys) keys.add(offerKey(e.kind, k));
  }
  return keys;
}

/** No list could be read at all (wrong key, marketplace down): the run stops before planning. */
export class MarketplaceUnreadableError extends Error {
  override readonly name = 'MarketplaceUnreadableError';
}

const WATERMARK_KEY = (kind: OfferKind) => `watermark.${kind}`;
const DEFAULT_REPROBE_MS = 24 * 3_600_000;

export function newRunId(): string {
  return `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(3).toString('hex')}`;
}

export async function reconcile(deps: ReconcileDeps, opts: ReconcileOptions): Promise<ReconcileResult> {
  const { store, client, settings } = deps;
  const started = Date.now();
  const runId = newRunId();
  const logger = deps.logger.child({ runId });
  const requestsAtStart = deps.requestCount?.() ?? 0;
  const lease =
    opts.dryRun || deps.leaseHeldByCaller
      ? null
      : await acquireWriterLease(store, {
          ttlMs: settings.leaseTtlMs ?? 30_000,
          waitMs: opts.lockTimeoutMs ?? 0,
          signal: opts.signal,
          onWait: (h) =>
            logger.warn({ holder: h.holder, pid: h.pid, host: h.hostname }, 'writer lease held: waiting for it'),
          onLost: (h) => logger.error({ holder: h.holder }, 'lost the writer lease: no further write is started'),
          onRenewError: (err) => logger.warn({ err: errorMessage(err) }, 'writer lease renewal failed: retrying'),
        });
  const stop = [opts.signal, lease?.lost].filter((s): s is AbortSignal => s !== undefined);
  const signal = stop.length > 0 ? AbortSignal.any(stop) : undefined;

  try {
    const settle = opts.dryRun ? { unsettled: [] as string[] } : await settleJournal(store, client, logger);
    // Read a page at a time as asked, never all held at once (100,000 records were a third of a run's memory).
    const state = await store.offerView();
    const watermarks: Partial<Record<OfferKind, number>> = {};
    for (const kind of OFFER_KINDS) {
      const w = await store.getMeta(WATERMARK_KEY(kind));
      if (w) watermarks[kind] = Number(w);
    }
    const [catalogue, snap] = await Promise.all([
      deps.loadCatalogue(),
      readSnapshot({ client, state, mode: opts.mode ?? 'full', watermarks, perPage: settings.perPage, logger }),
    ]);
    if (OFFER_KINDS.every((k) => !snap.snapshot.kinds[k].complete)) {
      throw new MarketplaceUnreadableError(
        `cannot read the marketplace's offer lists (${snap.snapshot.kinds.account.error ?? 'unknown error'}); ` +
          `nothing was sent`,
      );
    }
    const unconfirmed = new Set([...snap.snapshot.unconfirmed, ...settle.unsettled]);
    const now = deps.now ?? Date.now;
    const reprobeAfterMs = settings.reprobeAfterMs ?? DEFAULT_REPROBE_MS;
    const backoffs = await OfferBackoffs.load(store, settings.offerBackoff ?? DEFAULT_OFFER_BACKOFF, now);
    // What the planner reads besides the offers is read before it starts: the planner itself does no I/O.
    const uploadedImages = new Map((await store.listImages()).map((i) => [i.sha256, i.remoteId]));
    const interruptedCreates = opts.dryRun ? await interruptedCreateKeys(store) : undefined;
    const memory = reprobingMemory(store, now, reprobeAfterMs);
    const capabilities = await readCapabilities((name) => memory.getCapability(name));
    const plan = await makePlan({
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
    });
    opts.onPlan?.(plan);
    forgetListing(snap.snapshot);

    // A targeted run reports the catalogue errors inside its target only (a whole-file error by its file).
    const inTarget = isTargeted(opts.target) ? targetTest(opts.target) : null;
    const catalogueFailures: OfferOutcome[] = catalogue.problems
      .filter((p) => p.severity === 'error')
      .filter(
        (p) =>
          !inTarget ||
          (p.kind !== undefined &&
            inTarget(p.kind, p.externalId ?? '', p.file) &&
            (p.externalId !== undefined || opts.target?.match === undefined)),
      )
      .map((p) => ({
        kind: p.kind ?? 'file',
        externalId: p.externalId ?? '(file)',
        outcome: 'invalid' as const,
        file: `${fileLineColumn(p.file, p)}${p.pointer ? `#${p.pointer}` : ''}`,
        message: `${p.field ? `${p.field}: ` : ''}${p.message}`,
      }));
    const sales = plan.soldCounts.flatMap((n) => (n.sale ? [n.sale] : []));
    const note = targetNote(plan);
    const guardMessages: string[] = [];
    if (plan.priceGuard.tripped && plan.priceGuard.message) {
      const held = opts.dryRun ? undefined : priceGuardHeldMessage(plan.priceGuard, settings.statePath, runId);
      guardMessages.push(plan.priceGuard.message, ...(held ? [held] : []));
    }
    if (plan.guard.tripped && plan.guard.message) {
      const held = opts.dryRun ? undefined : guardHeldMessage(plan.guard, settings.statePath, runId);
      guardMessages.push(plan.guard.message, ...(held ? [held] : []));
    }
    const messages = [...guardMessages, ...(note ? [note] : []), ...plan.archiveSuppressed, ...plan.warnings];

    if (opts.dryRun) {
      return {
        plan,
        catalogue,
        report: finish(runId, 'planned', catalogueFailures, messages, started, deps, requestsAtStart, sales),
      };
    }
    const refused = (await opts.accept?.(plan)) ?? [];
    if (refused.length > 0) {
      const noWrites: Plan = { ...plan, actions: [] };
      return {
        plan: noWrites,
        catalogue,
        report: finish(runId, 'aborted', catalogueFailures, [...refused, ...messages], started, deps, requestsAtStart),
      };
    }

    await store.runStart(runId, opts.command);
    let outcomes: OfferOutcome[] = [];
    let outcome: RunReport['outcome'];
    try {
      outcomes = await execute(plan, {
        client,
        store,
        logger,
        runId,
        statePath: settings.statePath,
        ...(settings.salesInState ? { salesInState: true } : {}),
        options: settings.executor,
        onProgress: opts.onProgress,
        signal,
        backoffs,
        reprobeAfterMs,
        now,
      });
      await backoffs.save();
      const all = [...outcomes, ...catalogueFailures];
      outcome = stoppedByGuard(plan)
        ? 'aborted'
        : signal?.aborted
          ? 'stopped'
          : all.some((o) => NEEDS_ATTENTION.has(o.outcome))
            ? 'partial'
            : 'converged';
      // A targeted run saw every offer but acted on some: the next incremental run must still see the rest.
      if (outcome !== 'aborted' && outcome !== 'stopped' && !plan.target) {
        for (const kind of OFFER_KINDS) {
          const w = snap.watermarks[kind];
          if (w !== undefined) await store.setMeta(WATERMARK_KEY(kind), String(w));
        }
      }
    } catch (err) {
      logger.error({ err: errorMessage(err) }, 'run failed');
      await store.runEnd(runId, 'failed', {});
      throw err;
    }
    const report = finish(
      runId,
      outcome,
      [...describeOutcomes(outcomes, plan), ...catalogueFailures],
      messages,
      started,
      deps,
      requestsAtStart,
      sales,
    );
    await store.runEnd(runId, outcome, flatCounts(report.counts));
    writeRunReport(settings.statePath, report, settings.keepReports, logger);
    if (stoppedByGuard(plan))
      await recordGuardStop(store, { runId, at: new Date(started).toISOString(), messages: guardMessages });
    else if (outcome !== 'stopped') await recordGuardStop(store, null);
    const pruned = await store.pruneHistory();
    if (pruned.runs + pruned.journal > 0) logger.debug(pruned, 'state db: old runs and journal entries pruned');
    return { plan, catalogue, report };
  } finally {
    await lease?.release();
  }
}

function finish(
  runId: string,
  outcome: RunReport['outcome'],
  outcomes: readonly OfferOutcome[],
  messages: readonly string[],
  started: number,
  deps: ReconcileDeps,
  requestsAtStart: number,
  sales: readonly UnitSale[] = [],
): RunReport {
  // Each offer once, whatever went wrong: a duplicated external_id is one invalid offer, not two failures.
  const one = oneOutcomePerOffer(outcomes);
  return {
    sales,
    runId,
    outcome,
    outcomes: one,
    counts: countOutcomes(one),
    requests: (deps.requestCount?.() ?? 0) - requestsAtStart,
    durationMs: Date.now() - started,
    messages,
  };
}
