// Prometheus metrics (prom-client), on a registry of their own so tests can run several. Conventions: counters
// end in _total, units in names (_seconds), live values are gauges read at scrape time (collect callbacks).
// Every metric carries the scope labels first (SCOPE_LABELS): one scope per writer today; a `seller` label
// slots in there for many sellers, recorded through MetricsScope without touching the call sites.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ResponseObserved } from '../marketplace/marketplace-client-options.ts';
import type { QueueEvent } from '../queue/queue-event.ts';
import type { OfferBackoff } from '../sync/offer-backoff.ts';
import type { RunReport } from '../sync/run-report.ts';

/** Labels that tell writers apart; empty while there is one. */
export const SCOPE_LABELS = [] as const;
export type ScopeLabels = Readonly<Record<(typeof SCOPE_LABELS)[number], string>>;

/** What the live gauges read at scrape time. */
export interface LiveSource {
  /** Requests waiting in the queue, on the wire, and the rate the queue allows now (requests/s). */
  queue(): { readonly size: number; readonly pending: number; readonly currentRate: number };
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

export class DaemonMetrics {
  readonly registry = new Registry();
  readonly #live = new Map<string, { labels: ScopeLabels; source: LiveSource }>();

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
    help: 'Reconcile runs by outcome and what started them',
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
    help: 'End of the last converged run (Unix time)',
    labelNames: [...SCOPE_LABELS],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // prom-client names three gauges *_total, which Prometheus reserves for counters (promtool refuses them);
    // nodejs_active_handles and nodejs_active_requests (same values, by type) stay.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      this.registry.removeSingleMetric(name);
    const live = (name: string, help: string, read: (s: LiveSource) => number) =>
      new Gauge({
        name,
        help,
        labelNames: [...SCOPE_LABELS],
        registers: [this.registry],
        collect: () => {
          const g = this.registry.getSingleMetric(name) as Gauge;
          for (const { labels, source } of this.#live.values()) g.set(labels, read(source));
        },
      });
    live('offersync_queue_size', 'Requests waiting in the queue now', (s) => s.queue().size);
    live('offersync_requests_in_flight', 'Requests on the wire now', (s) => s.queue().pending);
    live('offersync_rate_limit_requests_per_second', 'The rate the queue allows now', (s) => s.queue().currentRate);
    live('offersync_run_in_progress', '1 while a reconcile run is going', (s) => (s.runInProgress() ? 1 : 0));
    live('offersync_writer_lease_held', '1 while this process holds the writer lease', (s) => (s.leaseHeld() ? 1 : 0));
  }

  /** The recorder for one writer (labels: the scope labels' values). */
  scope(labels: ScopeLabels = {}): MetricsScope {
    return new MetricsScope(this, labels, (source) => this.#live.set(JSON.stringify(labels), { labels, source }));
  }
}

/** Records into DaemonMetrics with the scope's labels added. */
export class MetricsScope {
  constructor(
    private readonly m: DaemonMetrics,
    private readonly labels: ScopeLabels,
    private readonly watchLive: (source: LiveSource) => void,
  ) {}

  /** For MarketplaceClientOptions.onResponse. */
  readonly onResponse = (r: ResponseObserved): void => {
    const kind = kindOfPath(r.path);
    this.m.requests.inc({ ...this.labels, kind, method: r.method, status_class: statusClass(r.status) });
    this.m.requestSeconds.observe({ ...this.labels, kind, method: r.method }, r.seconds);
  };

  /** For RequestQueueOptions.onEvent. */
  readonly onQueueEvent = (e: QueueEvent): void => {
    if (e.type === 'rate-limited') this.m.rateLimited.inc(this.labels);
    else if (e.type === 'retry') this.m.retries.inc(this.labels);
  };

  /** The live gauges read this source at every scrape. */
  watch(source: LiveSource): void {
    this.watchLive(source);
  }

  recordRun(report: RunReport, trigger: string): void {
    this.m.runs.inc({ ...this.labels, outcome: report.outcome, trigger });
    this.m.runSeconds.observe(this.labels, report.durationMs / 1000);
    for (const [kind, row] of Object.entries(report.counts))
      for (const [outcome, n] of Object.entries(row)) this.m.offers.set({ ...this.labels, kind, outcome }, n);
    for (const s of report.sales) this.m.unitsSold.inc({ ...this.labels, kind: s.kind }, s.quantity);
    const now = Date.now() / 1000;
    this.m.lastRun.set(this.labels, now);
    if (report.outcome === 'converged') this.m.lastSuccess.set(this.labels, now);
  }

  /** The per-offer backoffs after a run (issue 10). */
  recordBackoffs(backoffs: Iterable<OfferBackoff>): void {
    let waiting = 0;
    let parked = 0;
    for (const b of backoffs) {
      if (b.nextAttemptAt === null) parked++;
      else waiting++;
    }
    this.m.heldBack.set({ ...this.labels, state: 'waiting' }, waiting);
    this.m.heldBack.set({ ...this.labels, state: 'parked' }, parked);
  }

  recordError(trigger: string): void {
    this.m.runs.inc({ ...this.labels, outcome: 'error', trigger });
  }
}
