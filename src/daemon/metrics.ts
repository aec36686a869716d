// Prometheus metrics (prom-client), on a registry of their own so tests can run several. Conventions: counters
// end in _total, units in names (_seconds), live values are gauges read at scrape time (collect callbacks).
// One DaemonMetrics per process: the process/runtime metrics once, and every offersync_* series labelled with its
// seller (SCOPE_LABELS), recorded through the seller's MetricsScope. A seller that leaves the process (given back,
// lease lost) takes its series with it (MetricsScope.close), so a replica shows only the sellers it runs, plus
// offersync_writer_lease_held 0 for each configured seller it does not hold (an unclaimed seller shows as 0
// everywhere).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ResponseObserved } from '../marketplace/marketplace-client-options.ts';
import type { QueueEvent } from '../queue/queue-event.ts';
import type { OfferBackoff } from '../sync/plan/offer-backoff.ts';
import type { RunReport } from '../sync/report/run-report.ts';
import type { UnitKind } from '../sales/unit-sale.ts';

/** Labels that tell writers apart: the seller. */
export const SCOPE_LABELS = ['seller'] as const;
export type ScopeLabels = Readonly<Record<(typeof SCOPE_LABELS)[number], string>>;

/** What the live gauges read at scrape time. */
export interface LiveSource {
  /**
   * Requests waiting in the queue, on the wire, the rate the queue allows now and the rate the marketplace
   * advertises (null until it did), in requests/s.
   */
  queue(): {
    readonly size: number;
    readonly pending: number;
    readonly currentRate: number;
    readonly advertisedRate?: number | null;
  };
  runInProgress(): boolean;
  leaseHeld(): boolean;
}

const KIND_OF_PATH: readonly [RegExp, string][] = [
  [/\/accounts(?:\/|$)/, 'account'],
  [/\/items(?:\/|$)/, 'item'],
  [/\/top-ups(?:\/|$)/, 'topup'],
  [/\/images(?:\/|$)/, 'image'],
];

/** The resource a request was about, from its path: a small fixed set, never an id. */
export function kindOfPath(path: string): string {
  return KIND_OF_PATH.find(([re]) => re.test(path))?.[1] ?? 'other';
}

/** 2xx, 4xx, ...; 'error' when no answer came (timeout, connection refused or reset). */
export function statusClass(status: number | null): string {
  return status === null ? 'error' : `${Math.floor(status / 100)}xx`;
}

/** The kinds whose units the marketplace sells (unit-sale.ts). */
const SOLD_KINDS: readonly UnitKind[] = ['item', 'topup'];

type Labelled = Counter<string> | Gauge<string> | Histogram<string>;

export class DaemonMetrics {
  readonly registry = new Registry();
  readonly #live = new Map<string, { labels: ScopeLabels; source: LiveSource }>();
  /** Sellers this process may run (a replica's, read at each scrape): those not running here show lease held 0. */
  #configured: () => readonly string[] = () => [];

  readonly requests = new Counter({
    name: 'offersync_requests_total',
    help: 'Marketplace requests by resource kind, method and status class (every attempt; error: no answer)',
    labelNames: [...SCOPE_LABELS, 'kind', 'method', 'status_class'],
    registers: [this.registry],
  });
  readonly requestSeconds = new Histogram({
    name: 'offersync_request_duration_seconds',
    help: 'Time from sending a marketplace request to its whole answer',
    labelNames: [...SCOPE_LABELS, 'kind', 'method'],
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'offersync_rate_limited_total',
    help: '429 answers from the marketplace',
    labelNames: [...SCOPE_LABELS],
    registers: [this.registry],
  });
  readonly retries = new Counter({
    name: 'offersync_retries_total',
    help: 'Requests tried again after a retryable failure (429, 5xx, timeout, connection error)',
    labelNames: [...SCOPE_LABELS],
    registers: [this.registry],
  });
  readonly runs = new Counter({
    name: 'offersync_runs_total',
    help: 'Reconcile runs by outcome (error: the run threw) and what started them',
    labelNames: [...SCOPE_LABELS, 'outcome', 'trigger'],
    registers: [this.registry],
  });
  readonly runSeconds = new Histogram({
    name: 'offersync_run_duration_seconds',
    help: 'Duration of reconcile runs',
    labelNames: [...SCOPE_LABELS],
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 1800],
    registers: [this.registry],
  });
  readonly offers = new Gauge({
    name: 'offersync_last_run_offers',
    help: 'Offers by kind and outcome in the last run',
    labelNames: [...SCOPE_LABELS, 'kind', 'outcome'],
    registers: [this.registry],
  });
  readonly unitsSold = new Counter({
    name: 'offersync_units_sold_total',
    help: 'Units of items and top-ups the marketplace sold, by kind, as runs saw them',
    labelNames: [...SCOPE_LABELS, 'kind'],
    registers: [this.registry],
  });
  readonly heldBack = new Gauge({
    name: 'offersync_offers_held_back',
    help: 'Offers the marketplace refused, held back by their backoff (waiting) or until their entry changes (parked)',
    labelNames: [...SCOPE_LABELS, 'state'],
    registers: [this.registry],
  });
  readonly lastRun = new Gauge({
    name: 'offersync_last_run_timestamp_seconds',
    help: 'End of the last run (Unix time)',
    labelNames: [...SCOPE_LABELS],
    registers: [this.registry],
  });
  readonly lastSuccess = new Gauge({
    name: 'offersync_last_converged_timestamp_seconds',
    help: 'End of the last converged run (Unix time; from the state db when the seller starts here)',
    labelNames: [...SCOPE_LABELS],
    registers: [this.registry],
  });
  readonly guardStops = new Counter({
    name: 'offersync_guard_stops_total',
    help: 'Runs a guard stopped before sending (mass archive, price drop): nothing of the plan was sent',
    labelNames: [...SCOPE_LABELS],
    registers: [this.registry],
  });
  readonly guardStopped = new Gauge({
    name: 'offersync_guard_stopped',
    help: '1 while the last run of the seller was stopped by a guard (until a run gets through)',
    labelNames: [...SCOPE_LABELS],
    registers: [this.registry],
  });
  readonly unreadableRuns = new Counter({
    name: 'offersync_marketplace_unreadable_runs_total',
    help: 'Runs that could read none of the marketplace offer lists (wrong key, marketplace down): nothing sent',
    labelNames: [...SCOPE_LABELS],
    registers: [this.registry],
  });
  readonly unreadable = new Gauge({
    name: 'offersync_marketplace_unreadable',
    help: '1 while the last run could read none of the marketplace offer lists',
    labelNames: [...SCOPE_LABELS],
    registers: [this.registry],
  });
  readonly replicasLive = new Gauge({
    name: 'offersync_replicas_live',
    help: 'Replicas on the state db that renewed their heartbeat (this one included), as this replica counts them',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // prom-client names three gauges *_total, which Prometheus reserves for counters (promtool refuses them);
    // nodejs_active_handles and nodejs_active_requests (same values, by type) stay.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      this.registry.removeSingleMetric(name);
    const live = (name: string, help: string, read: (s: LiveSource) => number | null, idle?: number) =>
      new Gauge({
        name,
        help,
        labelNames: [...SCOPE_LABELS],
        registers: [this.registry],
        collect: () => {
          const g = this.registry.getSingleMetric(name) as Gauge;
          // Read afresh each scrape: a seller gone since the last one leaves no series behind.
          g.reset();
          for (const { labels, source } of this.#live.values()) {
            const v = read(source);
            if (v !== null) g.set(labels, v);
          }
          if (idle !== undefined)
            for (const seller of this.#configured()) if (!this.#live.has(seller)) g.set({ seller }, idle);
        },
      });
    live('offersync_queue_size', 'Requests waiting in the queue now', (s) => s.queue().size);
    live('offersync_requests_in_flight', 'Requests on the wire now', (s) => s.queue().pending);
    live('offersync_rate_limit_requests_per_second', 'The rate the queue allows now', (s) => s.queue().currentRate);
    live(
      'offersync_rate_limit_advertised_requests_per_second',
      'The rate the marketplace advertises in its rate-limit headers (absent until it did)',
      (s) => s.queue().advertisedRate ?? null,
    );
    live('offersync_run_in_progress', '1 while a reconcile run is going', (s) => (s.runInProgress() ? 1 : 0));
    live(
      'offersync_writer_lease_held',
      "1 while this process holds the seller's writer lease; 0 for a configured seller it does not run",
      (s) => (s.leaseHeld() ? 1 : 0),
      0,
    );
  }

  /** The sellers this process may run, as they are at each scrape: each not running here shows lease held 0. */
  configureSellers(sellers: () => readonly string[]): void {
    this.#configured = sellers;
  }

  /** The recorder for one seller. */
  scope(labels: ScopeLabels = { seller: 'default' }): MetricsScope {
    const key = labels.seller;
    return new MetricsScope(this, labels, {
      watch: (source) => this.#live.set(key, { labels, source }),
      unwatch: () => this.#live.delete(key),
    });
  }
}

/** Records into DaemonMetrics with the scope's labels added; close() removes every series it wrote. */
export class MetricsScope {
  /** Each label set written, by metric: what close() removes. */
  readonly #written = new Map<Labelled, Map<string, Record<string, string>>>();

  constructor(
    private readonly m: DaemonMetrics,
    readonly labels: ScopeLabels,
    private readonly live: { watch(source: LiveSource): void; unwatch(): void },
  ) {}

  #with<T extends Record<string, string>>(metric: Labelled, extra?: T): Record<string, string> {
    const labels = { ...this.labels, ...extra };
    const seen = this.#written.get(metric) ?? new Map<string, Record<string, string>>();
    this.#written.set(metric, seen);
    seen.set(JSON.stringify(labels), labels);
    return labels;
  }

  /** For MarketplaceClientOptions.onResponse. */
  readonly onResponse = (r: ResponseObserved): void => {
    const kind = kindOfPath(r.path);
    this.m.requests.inc(this.#with(this.m.requests, { kind, method: r.method, status_class: statusClass(r.status) }));
    this.m.requestSeconds.observe(this.#with(this.m.requestSeconds, { kind, method: r.method }), r.seconds);
  };

  /** For RequestQueueOptions.onEvent. */
  readonly onQueueEvent = (e: QueueEvent): void => {
    if (e.type === 'rate-limited') this.m.rateLimited.inc(this.#with(this.m.rateLimited));
    else if (e.type === 'retry') this.m.retries.inc(this.#with(this.m.retries));
  };

  /** The live gauges read this source at every scrape. */
  watch(source: LiveSource): void {
    this.live.watch(source);
  }

  recordRun(report: RunReport, trigger: string): void {
    this.m.runs.inc(this.#with(this.m.runs, { outcome: report.outcome, trigger }));
    this.m.runSeconds.observe(this.#with(this.m.runSeconds), report.durationMs / 1000);
    for (const [kind, row] of Object.entries(report.counts))
      for (const [outcome, n] of Object.entries(row))
        this.m.offers.set(this.#with(this.m.offers, { kind, outcome }), n);
    // Counters start at 0 rather than appear with their first event: rate() and the alerts see them from the start.
    for (const kind of SOLD_KINDS) this.m.unitsSold.inc(this.#with(this.m.unitsSold, { kind }), 0);
    this.m.rateLimited.inc(this.#with(this.m.rateLimited), 0);
    this.m.retries.inc(this.#with(this.m.retries), 0);
    for (const s of report.sales) this.m.unitsSold.inc(this.#with(this.m.unitsSold, { kind: s.kind }), s.quantity);
    const now = Date.now() / 1000;
    this.m.lastRun.set(this.#with(this.m.lastRun), now);
    if (report.outcome === 'converged') this.m.lastSuccess.set(this.#with(this.m.lastSuccess), now);
    this.m.unreadableRuns.inc(this.#with(this.m.unreadableRuns), 0);
    this.m.unreadable.set(this.#with(this.m.unreadable), 0);
  }

  /** The last converged run the state db remembers, when the seller starts in this process (it may be older). */
  recordLastConverged(unixSeconds: number): void {
    this.m.lastSuccess.set(this.#with(this.m.lastSuccess), unixSeconds);
  }

  /** After each run: whether a guard stopped it (thisRun), and whether the seller's last stop still stands. */
  recordGuard(thisRun: boolean, standing: boolean): void {
    if (thisRun) this.m.guardStops.inc(this.#with(this.m.guardStops));
    else this.m.guardStops.inc(this.#with(this.m.guardStops), 0);
    this.m.guardStopped.set(this.#with(this.m.guardStopped), standing ? 1 : 0);
  }

  /** The per-offer backoffs after a run. */
  recordBackoffs(backoffs: Iterable<OfferBackoff>): void {
    let waiting = 0;
    let parked = 0;
    for (const b of backoffs) {
      if (b.nextAttemptAt === null) parked++;
      else waiting++;
    }
    this.m.heldBack.set(this.#with(this.m.heldBack, { state: 'waiting' }), waiting);
    this.m.heldBack.set(this.#with(this.m.heldBack, { state: 'parked' }), parked);
  }

  /** A run that threw; unreadable: it could read none of the marketplace's lists. */
  recordError(trigger: string, unreadable = false): void {
    this.m.runs.inc(this.#with(this.m.runs, { outcome: 'error', trigger }));
    if (unreadable) this.m.unreadableRuns.inc(this.#with(this.m.unreadableRuns));
    else this.m.unreadableRuns.inc(this.#with(this.m.unreadableRuns), 0);
    this.m.unreadable.set(this.#with(this.m.unreadable), unreadable ? 1 : 0);
  }

  /** The seller left this process: its live source and every series it wrote go. */
  close(): void {
    this.live.unwatch();
    for (const [metric, sets] of this.#written) for (const labels of sets.values()) metric.remove(labels);
    this.#written.clear();
  }
}
