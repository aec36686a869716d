// Prometheus metrics of the daemon (prom-client), on a registry of its own so tests can run several.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RunReport } from '../sync/run-report.ts';

export class DaemonMetrics {
  readonly registry = new Registry();
  readonly runs = new Counter({
    name: 'offersync_runs_total',
    help: 'Reconcile runs by outcome',
    labelNames: ['outcome', 'trigger'],
    registers: [this.registry],
  });
  readonly runSeconds = new Histogram({
    name: 'offersync_run_duration_seconds',
    help: 'Duration of reconcile runs',
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 1800],
    registers: [this.registry],
  });
  readonly requests = new Counter({
    name: 'offersync_requests_total',
    help: 'Marketplace requests sent by runs',
    registers: [this.registry],
  });
  readonly offers = new Gauge({
    name: 'offersync_last_run_offers',
    help: 'Offers by kind and outcome in the last run',
    labelNames: ['kind', 'outcome'],
    registers: [this.registry],
  });
  readonly lastRun = new Gauge({
    name: 'offersync_last_run_timestamp_seconds',
    help: 'End of the last run',
    registers: [this.registry],
  });
  readonly lastSuccess = new Gauge({
    name: 'offersync_last_converged_timestamp_seconds',
    help: 'End of the last converged run',
    registers: [this.registry],
  });
  readonly queueSize = new Gauge({
    name: 'offersync_queue_size',
    help: 'Requests waiting in the queue',
    registers: [this.registry],
  });
  readonly rateLimited = new Gauge({
    name: 'offersync_rate_limited_total',
    help: '429 answers seen since start',
    registers: [this.registry],
  });

  recordRun(report: RunReport, trigger: string): void {
    this.runs.inc({ outcome: report.outcome, trigger });
    this.runSeconds.observe(report.durationMs / 1000);
    this.requests.inc(report.requests);
    this.offers.reset();
    for (const [kind, row] of Object.entries(report.counts))
      for (const [outcome, n] of Object.entries(row)) this.offers.set({ kind, outcome }, n);
    const now = Date.now() / 1000;
    this.lastRun.set(now);
    if (report.outcome === 'converged') this.lastSuccess.set(now);
  }
}
