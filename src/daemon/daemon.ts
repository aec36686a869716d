// The daemon decides only WHEN to reconcile: at start (full sweep), on catalogue changes, on a schedule.
// A trigger during a run is folded into one more run after it (a full sweep wins). A catalogue change during a
// run's writes is also planned at once for the offers it touched, in a run that joins the working one (same
// lease, journal and fence; execute/offer-turns.ts keeps one write per offer at a time) with its requests ahead of the
// backlog (urgent-lane.ts): money first.
import { OFFER_KINDS } from '../catalogue/desired-offer.ts';
import type { Logger } from '../log/logger.ts';
import { inUrgentLane } from '../queue/urgent-lane.ts';
import { OfferTurns } from '../sync/execute/offer-turns.ts';
import type { LeaseClaim } from '../state/records.ts';
import type { StateStore } from '../state/state-store.ts';
import { isStateUnavailable } from '../state/state-unavailable.ts';
import { stateDbFault, stateDbParagraph } from '../state/state-db-fault.ts';
import { type GuardStop, readGuardStop } from '../sync/plan/guard-stop.ts';
import { acquireWriterLease, describeHolder, type HeldLease } from '../state/writer-lease.ts';
import { errorMessage } from '../log/scrubber.ts';
import type { CatalogueView } from '../sync/plan/catalogue-view.ts';
import { MarketplaceUnreadableError, reconcile, type ReconcileDeps } from '../sync/reconciler.ts';
import { loadBackoffs } from '../sync/plan/offer-backoff.ts';
import { describeOfferSale, type RunReport } from '../sync/report/run-report.ts';
import { describeSale } from '../sales/unit-sale.ts';
import { CronSchedule } from './cron-schedule.ts';
import { startHealthServer, type HealthServer, type HealthServerOptions } from './health-server.ts';
import { DaemonMetrics, type MetricsScope } from './metrics.ts';
import type { RunNotifier } from '../notify/run-notifier.ts';
import { renderOfferPage, renderSearchPage } from '../status/offer-page.ts';
import { isStateKind, type QueueView, type ScheduleView, type StatusBoard } from '../status/status-board.ts';
import { renderStatusPage } from '../status/status-page.ts';
import { acknowledge, answer, pendingSyncRequest, type SyncAnswer } from '../sync-now/sync-request.ts';

/** What the daemon needs of the catalogue: a full load, and a re-parse of the files that changed. */
export interface ReloadableCatalogue {
  load(): Promise<CatalogueView>;
  reload(changes: FileChanges): Promise<CatalogueReload>;
}
/** A reload: the catalogue now, and the "kind:external_id" keys of offers that appeared, changed or went. */
export interface CatalogueReload {
  readonly snapshot: CatalogueView;
  readonly added?: readonly string[];
  readonly changed?: readonly string[];
  readonly removed?: readonly string[];
}
export interface FileChanges {
  readonly added: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
}
export interface FileWatcher {
  on(event: 'batch', fn: (c: FileChanges) => void): void;
  on(event: 'error', fn: (e: Error) => void): void;
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export interface DaemonOptions {
  readonly deps: Omit<ReconcileDeps, 'loadCatalogue' | 'leaseHeldByCaller'>;
  readonly store: StateStore;
  readonly catalogue: ReloadableCatalogue;
  readonly watch: () => FileWatcher;
  readonly logger: Logger;
  /** Cron expressions. */
  readonly fullSweep: string;
  readonly tick: string;
  readonly health: HealthServerOptions | null;
  /** The request queue now, for the live gauges. */
  readonly queueStats?: () => {
    readonly size: number;
    readonly pending: number;
    readonly currentRate: number;
    readonly advertisedRate?: number | null;
  };
  /** Default: a registry of its own. Pass the one whose scope observes the client and queue (openServices). */
  readonly metrics?: DaemonMetrics;
  readonly metricsScope?: MetricsScope;
  /** Drops the requests still waiting in the queue (stopping): they were never sent. */
  readonly clearQueue?: () => void;
  /** The writer lease's TTL (state.leaseTtlMs). Default 30 s. */
  readonly leaseTtlMs?: number;
  /** Tells the seller's webhooks what each run did. */
  readonly notifier?: Pick<RunNotifier, 'afterRun' | 'afterUnreadable'>;
  /**
   * The status page on `/` of the health server: what it shows, the queue's state, and warnings about the
   * setup shown above everything (plain http with `insecure`).
   */
  readonly status?: {
    readonly board: StatusBoard;
    readonly queue?: () => QueueView;
    readonly notices?: readonly string[];
  };
  /** Who takes the lease: a replica passes the claim it already took the seller's lease with. */
  readonly leaseClaim?: LeaseClaim;
  /** How often to look for a request to sync now. Default 1 s. */
  readonly syncRequestPollMs?: number;
  /** The state db's file, or its URL without the password, as a failing db's advice names it. */
  readonly stateDbShownAs?: string;
  /**
   * Plans a catalogue change at once while a run writes, ahead of its backlog (default true). false: the change
   * waits for the run to end, folded into the next one.
   */
  readonly planChangesAtOnce?: boolean;
}

/** The first retry of a run the state db failed, and the longest wait between retries. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/** How many of the newest runs are searched for the last converged one when a seller starts here. */
const RUNS_LOOKED_BACK = 50;

export type Trigger = 'start' | 'files' | 'tick' | 'sweep' | 'signal' | 'retry' | 'request';

/** How often the daemon looks for a `reconcile`'s request to sync now (sync-request.ts). */
const SYNC_REQUEST_POLL_MS = 1_000;

/** Runs joined to one working run at most: changes after them wait for the folded run. */
const MAX_JOINED_PER_RUN = 1_000;

/** Blocked and invalid offers the log names one by one after a run; the status page lists them all. */
const LOGGED_PER_RUN = 20;

export class Daemon {
  readonly metrics: DaemonMetrics;
  private readonly recorder: MetricsScope;
  private running: Promise<void> | null = null;
  private next: { mode: 'full' | 'incremental'; trigger: Trigger } | null = null;
  private pendingChanges: { added: Set<string>; changed: Set<string>; removed: Set<string> } | null = null;
  private loaded = false;
  private ready = false;
  private stopping = false;
  private lastReport: RunReport | null = null;
  private lastError: string | null = null;
  private tasks: CronSchedule[] = [];
  /** The scheduled runs, for the status page's "next run". */
  private tick: CronSchedule | null = null;
  private sweep: CronSchedule | null = null;
  private watcher: FileWatcher | null = null;
  private healthServer: HealthServer | null = null;
  private lease: HeldLease | null = null;
  /** Why the daemon is not ready while it waits for the writer lease. */
  private leaseWait: string | null = null;
  /** Why the state db is taken to be out (a renewal failed); cleared by the next one that succeeds. */
  private stateTrouble: string | null = null;
  /** The last run a guard stopped, as the state db said after the last run (refreshGuardStop). */
  private guardStop: GuardStop | null = null;
  /** A run the state db failed is tried again after this long: doubling while it keeps failing. */
  private retryMs = RETRY_FIRST_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  /** The state db failed during the current run (a renewal): its offers that failed are tried again soon. */
  private troubleInRun = false;
  private readonly stopController = new AbortController();
  /** The last request to sync now seen, and the one the next run answers. */
  private lastRequestId: string | undefined;
  private pendingRequest: string | null = null;
  private requestTimer: NodeJS.Timeout | undefined;
  /** Whose turn it is to write each offer while a change joins a working run. */
  private readonly turns = new OfferTurns();
  /** The working run has planned and is writing: a catalogue change can join it. */
  private writing: { readonly lease: HeldLease; readonly signal: AbortSignal } | null = null;
  /** The runs that join the working one, one after the other. */
  private joining: Promise<void> | null = null;
  /** The working run's writes: done of total (offers), for the status page's "writes left". */
  private progress: { done: number; total: number } | null = null;

  constructor(private readonly opts: DaemonOptions) {
    this.metrics = opts.metrics ?? new DaemonMetrics();
    this.recorder = opts.metricsScope ?? this.metrics.scope();
    this.recorder.watch({
      queue: () => opts.queueStats?.() ?? { size: 0, pending: 0, currentRate: 0 },
      runInProgress: () => this.running !== null,
      leaseHeld: () => this.lease !== null && !this.lease.lost.aborted,
    });
  }

  get healthPort(): number | undefined {
    return this.healthServer?.port;
  }

  /**
   * Serves health at once, waits for the writer lease (not ready meanwhile, with the reason on /readyz), then
   * watches and runs the first full sweep. Rejects with the stop reason when stop() comes first.
   */
  async start(): Promise<void> {
    if (this.opts.health && this.opts.health.port > 0) {
      this.healthServer = await startHealthServer(this.opts.health, this, this.metrics);
    }
    await this.takeLease();
    await this.refreshGuardStop();
    await this.recallLastConverged();
    this.watcher = this.opts.watch();
    this.watcher.on('batch', (c) => this.onFiles(c));
    this.watcher.on('error', (e) => this.opts.logger.warn({ err: e.message }, 'catalogue watcher error'));
    await this.watcher.ready;
    // On the monotonic clock: a wall-clock step neither stops the schedule nor bunches its runs.
    this.sweep = new CronSchedule(this.opts.fullSweep, () => this.trigger('full', 'sweep'));
    this.tick = new CronSchedule(this.opts.tick, () => this.trigger('incremental', 'tick'));
    this.tasks.push(this.sweep, this.tick);
    for (const t of this.tasks) t.start();
    this.trigger('full', 'start');
    this.requestTimer = setInterval(
      () => void this.pollSyncRequest(),
      this.opts.syncRequestPollMs ?? SYNC_REQUEST_POLL_MS,
    );
    this.requestTimer.unref();
    await this.idle();
  }

  /** A `reconcile` beside this daemon asked it to sync now: acknowledged, and a full sweep queued to answer it. */
  private async pollSyncRequest(): Promise<void> {
    if (this.stopping) return;
    try {
      const request = await pendingSyncRequest(this.opts.store, Date.now());
      if (!request || request.id === this.lastRequestId) return;
      this.lastRequestId = request.id;
      this.pendingRequest = request.id;
      await acknowledge(this.opts.store, request.id);
      this.opts.logger.info({ request: request.id }, 'asked to sync now');
      this.trigger('full', 'request');
    } catch (err) {
      this.opts.logger.debug({ err: errorMessage(err) }, 'state db: the request to sync now could not be read');
    }
  }

  /** Tells the `reconcile` that asked which run answered it (or why none did). A failure is logged only. */
  private async answerRequest(id: string | null, a: Omit<SyncAnswer, 'id'>): Promise<void> {
    if (id === null) return;
    await answer(this.opts.store, { id, ...a }).catch((err: unknown) =>
      this.opts.logger.warn(
        { err: errorMessage(err) },
        'state db: the answer to a request to sync now was not written',
      ),
    );
  }

  /** Waits for the writer lease as long as it takes (until stop()): another instance's expires on its own. */
  private async takeLease(): Promise<HeldLease> {
    if (this.lease && !this.lease.lost.aborted) return this.lease;
    const log = this.opts.logger;
    this.lease = await acquireWriterLease(this.opts.store, {
      ttlMs: this.opts.leaseTtlMs ?? 30_000,
      waitMs: Number.POSITIVE_INFINITY,
      signal: this.stopController.signal,
      ...(this.opts.leaseClaim ? { claim: this.opts.leaseClaim } : {}),
      onWait: (h) => {
        this.leaseWait =
          `waiting for the writer lease: ${describeHolder(h)} holds it until ` +
          `${new Date(h.expiresAt).toISOString()}`;
        log.warn({ holder: h.holder, pid: h.pid, host: h.hostname, expiresAt: h.expiresAt }, this.leaseWait);
      },
      onLost: (h) => {
        this.ready = false;
        log.error({ holder: h?.holder ?? null }, 'lost the writer lease: the current run sends nothing more');
      },
      onRenewError: (err) => {
        this.stateTrouble = `the state db does not answer (writer lease renewal failed: ${errorMessage(err)})`;
        this.troubleInRun = true;
        log.warn({ err: errorMessage(err) }, 'writer lease renewal failed: retrying');
      },
      onRenewed: () => {
        this.stateTrouble = null;
      },
    });
    if (this.leaseWait) log.info('took over the writer lease');
    this.leaseWait = null;
    return this.lease;
  }

  /**
   * The guard stop the state db remembers, read after each run: health() answers from it without waiting on
   * the database. A read that fails keeps the last one known.
   */
  private async refreshGuardStop(): Promise<GuardStop | null> {
    try {
      this.guardStop = await readGuardStop(this.opts.store);
    } catch (err) {
      this.opts.logger.debug({ err: errorMessage(err) }, 'state db: the guard stop could not be read');
    }
    return this.guardStop;
  }

  /**
   * The last converged run the state db remembers, for the metric: a seller that moved here from another replica
   * keeps its age (the alert on it) instead of starting without one. A read that fails leaves it unset.
   */
  private async recallLastConverged(): Promise<void> {
    try {
      const last = (await this.opts.store.listRuns(RUNS_LOOKED_BACK)).find(
        (r) => r.outcome === 'converged' && r.endedAt !== null,
      );
      if (last?.endedAt) this.recorder.recordLastConverged(last.endedAt / 1000);
    } catch (err) {
      this.opts.logger.debug({ err: errorMessage(err) }, 'state db: the last converged run could not be read');
    }
  }

  /** Resolves when no run is going and none is queued. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private onFiles(c: FileChanges): void {
    this.pendingChanges ??= { added: new Set(), changed: new Set(), removed: new Set() };
    const p = this.pendingChanges;
    for (const f of c.added) p.added.add(f);
    for (const f of c.changed) p.changed.add(f);
    for (const f of c.removed) p.removed.add(f);
    this.opts.logger.info(
      { added: c.added.length, changed: c.changed.length, removed: c.removed.length },
      'catalogue changed',
    );
    this.trigger('incremental', 'files');
    this.joinWorkingRun();
  }

  /** Changes taken but not read go back to the pending ones. */
  private onFilesAgain(c: { added: Set<string>; changed: Set<string>; removed: Set<string> }): void {
    this.pendingChanges ??= { added: new Set(), changed: new Set(), removed: new Set() };
    for (const f of c.added) this.pendingChanges.added.add(f);
    for (const f of c.changed) this.pendingChanges.changed.add(f);
    for (const f of c.removed) this.pendingChanges.removed.add(f);
  }

  /**
   * Plans the catalogue's pending changes at once, for the offers they touched, in runs that join the working one
   * (one at a time, each taking the changes seen so far). The folded run after it still looks at everything.
   */
  private joinWorkingRun(): void {
    if (this.opts.planChangesAtOnce === false || !this.writing || this.joining || this.stopping) return;
    this.joining = (async () => {
      for (let n = 0; n < MAX_JOINED_PER_RUN && this.writing && this.pendingChanges && !this.stopping; n++)
        await this.runJoined(this.writing);
    })().finally(() => {
      this.joining = null;
      // A change seen as the last one ended joins too.
      if (this.pendingChanges) this.joinWorkingRun();
    });
  }

  private async runJoined(working: { readonly lease: HeldLease; readonly signal: AbortSignal }): Promise<void> {
    const log = this.opts.logger;
    const changes = this.pendingChanges;
    this.pendingChanges = null;
    if (!changes) return;
    let reloaded: CatalogueReload;
    try {
      reloaded = await this.opts.catalogue.reload({
        added: [...changes.added],
        changed: [...changes.changed],
        removed: [...changes.removed],
      });
    } catch (err) {
      // Not read: the folded run reads these files again.
      this.onFilesAgain(changes);
      log.warn({ err: errorMessage(err) }, 'catalogue change not read at once: the next run takes it');
      return;
    }
    try {
      const keys = [...(reloaded.added ?? []), ...(reloaded.changed ?? []), ...(reloaded.removed ?? [])];
      if (keys.length === 0) return;
      const kinds = OFFER_KINDS.filter((k) => keys.some((key) => key.startsWith(`${k}:`)));
      const result = await inUrgentLane(() =>
        reconcile(
          { ...this.opts.deps, leaseHeldByCaller: true, loadCatalogue: async () => reloaded.snapshot },
          {
            command: 'daemon:files-at-once',
            dryRun: false,
            mode: 'incremental',
            signal: working.signal,
            heldLease: working.lease,
            target: { keys, kinds },
            turn: this.turns.begin(true),
            joining: true,
          },
        ),
      );
      this.opts.status?.board.recordRun(result, 'files');
      const { report } = result;
      log.info(
        { offers: keys.length, outcome: report.outcome, requests: report.requests, ms: report.durationMs },
        'catalogue change planned at once, ahead of the running backlog',
      );
      // Its target's note is no news; what stopped it (a guard) is.
      if (report.outcome !== 'converged') for (const m of report.messages) log.warn({ trigger: 'files' }, m);
    } catch (err) {
      // The folded run after the working one plans these offers again.
      log.warn({ err: errorMessage(err) }, 'catalogue change not planned at once: the next run takes it');
    }
  }

  trigger(mode: 'full' | 'incremental', trigger: Trigger): void {
    if (this.stopping) return;
    if (this.running) {
      this.next = { mode: this.next?.mode === 'full' || mode === 'full' ? 'full' : 'incremental', trigger };
      return;
    }
    this.running = this.loop(mode, trigger).finally(() => {
      this.running = null;
    });
  }

  private async loop(mode: 'full' | 'incremental', trigger: Trigger): Promise<void> {
    let current: { mode: 'full' | 'incremental'; trigger: Trigger } | null = { mode, trigger };
    while (current && !this.stopping) {
      await this.runOnce(current.mode, current.trigger);
      // The next run settles the journal: the runs that joined this one end first.
      while (this.joining) await this.joining;
      this.turns.clear();
      current = this.next;
      this.next = null;
    }
  }

  private async loadCatalogue(): Promise<CatalogueView> {
    const changes = this.pendingChanges;
    this.pendingChanges = null;
    if (!this.loaded) {
      this.loaded = true;
      return this.opts.catalogue.load();
    }
    const c = changes ?? { added: new Set<string>(), changed: new Set<string>(), removed: new Set<string>() };
    return (await this.opts.catalogue.reload({ added: [...c.added], changed: [...c.changed], removed: [...c.removed] }))
      .snapshot;
  }

  private async runOnce(mode: 'full' | 'incremental', trigger: Trigger): Promise<void> {
    const log = this.opts.logger;
    let unlink = (): void => undefined;
    this.troubleInRun = this.stateTrouble !== null;
    // A request to sync now seen before this run started is answered by it.
    const serving = this.pendingRequest;
    this.pendingRequest = null;
    try {
      const lease = await this.takeLease();
      const run = linkedSignal([this.stopController.signal, lease.lost]);
      unlink = run.unlink;
      const working = { lease, signal: run.signal };
      const result = await reconcile(
        { ...this.opts.deps, leaseHeldByCaller: true, loadCatalogue: () => this.loadCatalogue() },
        {
          command: `daemon:${trigger}`,
          dryRun: false,
          mode,
          signal: run.signal,
          heldLease: lease,
          turn: this.turns.begin(false),
          onProgress: (done, total) => {
            this.progress = { done, total };
          },
          // Planned: from now a catalogue change joins it (a change seen while it read is taken at once).
          onPlan: () => {
            this.writing = working;
            this.joinWorkingRun();
          },
        },
      ).finally(() => {
        this.writing = null;
        this.progress = null;
      });
      const { report } = result;
      await this.answerRequest(serving, { runId: report.runId, outcome: report.outcome });
      await this.opts.notifier?.afterRun(result);
      this.opts.status?.board.recordRun(result, trigger);
      this.lastReport = report;
      this.lastError = null;
      if (this.troubleInRun && report.outcome === 'partial') this.retryAfterOutage('it failed during the run');
      else this.retryMs = RETRY_FIRST_MS;
      this.stateTrouble = null;
      this.ready = !lease.lost.aborted;
      this.recorder.recordRun(report, trigger);
      this.recorder.recordBackoffs((await loadBackoffs(this.opts.store)).values());
      const guard = await this.refreshGuardStop();
      this.recorder.recordGuard(guard?.runId === report.runId, guard !== null);
      const failed = report.outcomes.filter((o) => o.outcome === 'failed').length;
      log.info(
        { trigger, mode, outcome: report.outcome, requests: report.requests, failed, ms: report.durationMs },
        'reconcile done',
      );
      // What the seller must see (a held new offer, a catalogue warning) reaches the log, not only `validate`.
      const attention = report.outcomes.filter((o) => o.outcome === 'blocked' || o.outcome === 'invalid');
      for (const o of attention.slice(0, LOGGED_PER_RUN))
        log.warn({ kind: o.kind, externalId: o.externalId, file: o.file, outcome: o.outcome }, o.message ?? o.outcome);
      if (attention.length > LOGGED_PER_RUN)
        log.warn({ more: attention.length - LOGGED_PER_RUN }, 'more offers blocked or invalid: see the status page');
      // Each sale by name: the seller hands over the account or the units that were bought.
      for (const o of report.outcomes)
        if (o.outcome === 'sold' && o.newSale)
          log.info(
            { kind: o.kind, externalId: o.externalId, title: o.title, sale: o.reason },
            `sold: ${describeOfferSale(o)}`,
          );
      for (const s of report.sales)
        log.info(
          { kind: s.kind, externalId: s.externalId, title: s.title, quantity: s.quantity, soldCount: s.soldCount },
          `sold: ${describeSale(s)}`,
        );
      for (const m of report.messages) log.warn({ trigger }, m);
    } catch (err) {
      await this.answerRequest(serving, { error: errorMessage(err) });
      if (this.stopping) return;
      this.lastError = errorMessage(err);
      if (isStateUnavailable(err)) this.retryAfterOutage(this.lastError);
      if (err instanceof MarketplaceUnreadableError) this.opts.notifier?.afterUnreadable(err.message);
      this.recorder.recordError(trigger, err instanceof MarketplaceUnreadableError);
      const fault = stateDbFault(err);
      if (fault) {
        // A full disk or a damaged file needs a person: the log says what to do, not only the driver's words.
        const where = this.opts.stateDbShownAs ?? 'the state db';
        this.lastError = stateDbParagraph(where, fault, err, { phase: 'run' });
      }
      log.error({ trigger, err: this.lastError }, 'reconcile failed: retried at the next trigger');
    } finally {
      unlink();
    }
  }

  /**
   * The state db did not answer: not ready, saying why, and a full sweep soon rather than at the next tick (the
   * run's file changes may be lost with it). Nothing was sent without its journal row: that row is written first.
   */
  private retryAfterOutage(message: string): void {
    this.stateTrouble = `the state db does not answer: ${message}`;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.trigger('full', 'retry'), this.retryMs);
    this.retryTimer.unref();
    this.opts.logger.warn({ retryInMs: this.retryMs }, 'state db unavailable: the run is tried again');
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  /** The HTML of the status page, or null without one. */
  async statusPage(): Promise<string | null> {
    const status = this.opts.status;
    if (!status) return null;
    const queue = status.queue?.() ?? null;
    const daemon = {
      ready: this.ready,
      work: this.workLeft(queue?.currentRate ?? 0),
      running: this.running !== null,
      lastError: this.lastError,
      waiting: this.leaseWait,
      lastOutcome: this.lastReport?.outcome ?? null,
      notices: status.notices ?? [],
      guardStop: await this.refreshGuardStop(),
      schedule: this.schedule(),
    };
    return renderStatusPage(await status.board.view(daemon, queue));
  }

  /** The working run's writes left, and their time at `rate` (requests/s); null when no run writes. */
  private workLeft(rate: number): { left: number; seconds: number } | null {
    const p = this.progress;
    if (!p || !this.writing || p.total === 0) return null;
    const left = Math.max(0, p.total - p.done);
    return { left, seconds: rate > 0 ? left / rate : 0 };
  }

  /** One offer's page; null when `kind` is no kind of offer (or without a status page). */
  async offerPage(kind: string, externalId: string): Promise<string | null> {
    const board = this.opts.status?.board;
    if (!board || !isStateKind(kind)) return null;
    return renderOfferPage(await board.offerView(kind, externalId));
  }

  async searchPage(query: string): Promise<string | null> {
    const board = this.opts.status?.board;
    return board ? renderSearchPage(await board.search(query)) : null;
  }

  /** When the schedules fire next; nothing before start() or after stop(). */
  private schedule(): ScheduleView {
    const next = (t: CronSchedule | null): number | null => (this.stopping ? null : (t?.nextRun() ?? null));
    return { nextTick: next(this.tick), nextSweep: next(this.sweep) };
  }

  health(): { ok: boolean; ready: boolean; detail: Record<string, unknown> } {
    const reason = this.leaseWait ?? this.stateTrouble;
    return {
      ok: !this.stopping,
      ready: this.ready && this.stateTrouble === null,
      detail: {
        ...(reason ? { reason } : {}),
        running: this.running !== null,
        last_outcome: this.lastReport?.outcome ?? null,
        last_run_id: this.lastReport?.runId ?? null,
        last_error: this.lastError,
        // A guard stopped the last run: the daemon carries on (sales, other sellers), but nothing is sent.
        ...guardDetail(this.guardStop),
      },
    };
  }

  /**
   * Stops triggers and any wait for the lease; the current run starts no further write, the requests still
   * queued are dropped (never sent), those on the wire finish and are journaled. Then lets go of the lease.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.requestTimer);
    this.stopController.abort(new Error('the daemon is stopping'));
    this.opts.clearQueue?.();
    for (const t of this.tasks) t.stop();
    this.tasks = [];
    await this.watcher?.close();
    await this.idle();
    await this.lease?.release();
    await this.healthServer?.close();
  }
}

function guardDetail(stop: GuardStop | null): Record<string, unknown> {
  return stop ? { stopped_by_guard: { run_id: stop.runId, at: stop.at, message: stop.messages[0] ?? '' } } : {};
}

/**
 * A signal aborted when any source aborts, unlinked from them when the run is over. Not AbortSignal.any: on
 * Node 20 a source that lives on (the daemon's stop signal, the writer lease) keeps every signal made from it,
 * about 1.3 KB a run, which the 1,000-run soak bench showed as steady heap growth.
 */
function linkedSignal(sources: readonly AbortSignal[]): { signal: AbortSignal; unlink: () => void } {
  const controller = new AbortController();
  const links = sources.map((source) => {
    const abort = (): void => controller.abort(source.reason);
    source.addEventListener('abort', abort, { once: true });
    return () => source.removeEventListener('abort', abort);
  });
  const aborted = sources.find((s) => s.aborted);
  if (aborted) controller.abort(aborted.reason);
  const unlink = (): void => {
    for (const link of links) link();
  };
  return { signal: controller.signal, unlink };
}
