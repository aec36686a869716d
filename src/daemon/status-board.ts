// What the status page shows, gathered: the daemon's recent runs (with why, requests and duration, which the
// state db does not keep), the offers that failed or wait in backoff with where they are in the catalogue, the
// catalogue's errors, the latest sales (sold.jsonl, or the state db with PostgreSQL), offers by kind and status,
// the rate and the queue.
// Read-only: it reads the state db and never writes.
import { fileLineColumn } from '../catalogue/catalogue-problem.ts';
import { scrubSecrets } from '../log/scrubber.ts';
import type { StateStore } from '../state/state-store.ts';
import { loadBackoffs } from '../sync/offer-backoff.ts';
import type { CatalogueView } from '../sync/reconciler.ts';
import type { RunReport } from '../sync/run-report.ts';
import type { GuardStop } from '../sync/guard-stop.ts';
import type { SalesLedger } from '../sync/sales-ledger.ts';
import { scrubCredentials } from './notification.ts';

export interface QueueView {
  /** Requests waiting for a token. */
  readonly size: number;
  /** Requests on the wire. */
  readonly pending: number;
  /** Requests per second in use now. */
  readonly currentRate: number;
  readonly isPaused: boolean;
  readonly pausedUntil: number | null;
}

export interface RunView {
  readonly id: string;
  readonly startedAt: number;
  /** What started it: start, files, tick, sweep; or the command for runs from another process. */
  readonly why: string;
  readonly outcome: string;
  readonly requests: number | null;
  readonly durationMs: number | null;
  readonly counts: Readonly<Record<string, number>>;
}

export interface ProblemView {
  readonly kind: string;
  readonly externalId: string;
  readonly state: 'failed' | 'blocked' | 'backoff';
  readonly title?: string;
  readonly message: string;
  /** Catalogue file and line (file:line[:column]) when known. */
  readonly where?: string;
  /** Backoff: when it is sent again (epoch ms), null when parked until its entry changes. */
  readonly nextAttemptAt?: number | null;
}

export interface SaleView {
  readonly kind: string;
  readonly externalId: string;
  readonly title?: string;
  readonly status: string;
  readonly at: string;
  /** Items and top-ups: units sold. */
  readonly quantity?: number;
}

export interface StatusView {
  readonly seller: string;
  readonly generatedAt: number;
  readonly refreshSeconds: number;
  readonly daemon: {
    readonly ready: boolean;
    readonly running: boolean;
    readonly lastError: string | null;
    readonly waiting: string | null;
    /** Outcome of the daemon's last run, null before it. */
    readonly lastOutcome: string | null;
    /** Warnings about the setup, shown first (plain http with `insecure`). */
    readonly notices?: readonly string[];
    /** The last run a guard stopped, until a run gets through. */
    readonly guardStop?: GuardStop | null;
  };
  readonly offers: readonly { readonly kind: string; readonly byStatus: Readonly<Record<string, number>> }[];
  readonly runs: readonly RunView[];
  readonly problems: readonly ProblemView[];
  readonly catalogueErrors: readonly {
    readonly where: string;
    readonly externalId?: string;
    readonly message: string;
  }[];
  readonly catalogueErrorCount: number;
  readonly sales: readonly SaleView[];
  readonly queue: QueueView | null;
}

const MAX_RUNS = 15;
const MAX_LISTED = 50;
const MAX_SALES = 20;

interface RecordedRun extends RunView {}

export class StatusBoard {
  private readonly runs: RecordedRun[] = [];
  private catalogue: CatalogueView | undefined;
  private lastReport: RunReport | undefined;
  private offerCounts: StatusView['offers'] | undefined;

  constructor(
    // setMeta only because loadBackoffs' type asks for it: the board never writes.
    private readonly store: Pick<StateStore, 'listOffers' | 'listRuns' | 'getMeta' | 'setMeta'>,
    /** Where the seller's sales are kept (sales-ledger.ts). */
    private readonly salesLedger: Pick<SalesLedger, 'latest'>,
    private readonly seller: string,
    private readonly refreshSeconds = 15,
  ) {}

  /** After each run: what only the daemon knows of it. */
  recordRun(result: { readonly report: RunReport; readonly catalogue: CatalogueView }, why: string): void {
    const r = result.report;
    this.runs.unshift({
      id: r.runId,
      startedAt: Date.now() - r.durationMs,
      why,
      outcome: r.outcome,
      requests: r.requests,
      durationMs: r.durationMs,
      counts: flat(r.counts),
    });
    this.runs.length = Math.min(this.runs.length, MAX_RUNS);
    this.catalogue = result.catalogue;
    this.lastReport = r;
    this.offerCounts = undefined; // counted again at the next view
  }

  async view(daemon: StatusView['daemon'], queue: QueueView | null, now = Date.now()): Promise<StatusView> {
    if (!this.offerCounts) this.offerCounts = await this.countOffers();
    return {
      seller: this.seller,
      generatedAt: now,
      refreshSeconds: this.refreshSeconds,
      daemon: { ...daemon, lastError: daemon.lastError === null ? null : scrubSecrets(daemon.lastError) },
      offers: this.offerCounts,
      runs: await this.mergedRuns(),
      problems: await this.problems(),
      ...this.catalogueErrors(),
      sales: await this.sales(),
      queue,
    };
  }

  private async countOffers(): Promise<StatusView['offers']> {
    const byKind = new Map<string, Record<string, number>>();
    for (const o of await this.store.listOffers()) {
      const row = byKind.get(o.kind) ?? {};
      byKind.set(o.kind, row);
      const status = o.remoteStatus ?? 'unknown';
      row[status] = (row[status] ?? 0) + 1;
    }
    return [...byKind].map(([kind, byStatus]) => ({ kind, byStatus }));
  }

  /** The daemon's own runs, and before them those the state db remembers (another process, before a restart). */
  private async mergedRuns(): Promise<RunView[]> {
    const known = new Set(this.runs.map((r) => r.id));
    const older = (await this.store.listRuns(MAX_RUNS))
      .filter((r) => !known.has(r.id))
      .map(
        (r): RunView => ({
          id: r.id,
          startedAt: r.startedAt,
          why: r.command,
          outcome: r.outcome ?? 'running',
          requests: null,
          durationMs: r.endedAt === null ? null : r.endedAt - r.startedAt,
          counts: r.counts,
        }),
      );
    return [...this.runs, ...older].sort((a, b) => b.startedAt - a.startedAt).slice(0, MAX_RUNS);
  }

  private offer(kind: string, externalId: string) {
    return this.catalogue?.offers.find((o) => o.kind === kind && o.externalId === externalId);
  }

  private titleOf(kind: string, externalId: string): string | undefined {
    const f = this.offer(kind, externalId)?.fields as { title?: string; offer_title?: string } | undefined;
    return f?.title ?? f?.offer_title;
  }

  private whereOf(kind: string, externalId: string, file?: string): string | undefined {
    const s = this.offer(kind, externalId)?.source;
    if (s) return s.line !== undefined ? `${s.file}:${s.line}` : s.pointer ? `${s.file} ${s.pointer}` : s.file;
    return file;
  }

  private clean(kind: string, externalId: string, message: string): string {
    const offer = this.offer(kind, externalId);
    return scrubSecrets(offer ? scrubCredentials(offer, message) : message);
  }

  private async problems(): Promise<ProblemView[]> {
    const out: ProblemView[] = [];
    const seen = new Set<string>();
    const catalogueFailures = new Set(
      (this.catalogue?.problems ?? []).filter((p) => p.severity === 'error').map((p) => `${p.kind}:${p.externalId}`),
    );
    for (const o of this.lastReport?.outcomes ?? []) {
      if (o.outcome !== 'failed' && o.outcome !== 'blocked') continue;
      if (o.kind === 'file' || o.kind === 'image') continue;
      const key = `${o.kind}:${o.externalId}`;
      if (catalogueFailures.has(key)) continue; // listed with the catalogue's errors
      seen.add(key);
      const title = this.titleOf(o.kind, o.externalId);
      const where = this.whereOf(o.kind, o.externalId, o.file);
      out.push({
        kind: o.kind,
        externalId: o.externalId,
        state: o.outcome,
        ...(title ? { title } : {}),
        message: this.clean(o.kind, o.externalId, o.message ?? o.outcome),
        ...(where ? { where } : {}),
      });
    }
    for (const b of (await loadBackoffs(this.store)).values()) {
      const key = `${b.kind}:${b.externalId}`;
      if (seen.has(key)) continue;
      const title = this.titleOf(b.kind, b.externalId);
      const where = this.whereOf(b.kind, b.externalId);
      out.push({
        kind: b.kind,
        externalId: b.externalId,
        state: 'backoff',
        ...(title ? { title } : {}),
        message: this.clean(b.kind, b.externalId, b.message),
        ...(where ? { where } : {}),
        nextAttemptAt: b.nextAttemptAt,
      });
    }
    return out.slice(0, MAX_LISTED);
  }

  private catalogueErrors(): Pick<StatusView, 'catalogueErrors' | 'catalogueErrorCount'> {
    const errors = (this.catalogue?.problems ?? []).filter((p) => p.severity === 'error');
    return {
      catalogueErrorCount: errors.length,
      catalogueErrors: errors.slice(0, MAX_LISTED).map((p) => {
        const at = fileLineColumn(p.file, p);
        return {
          where: p.pointer ? `${at} ${p.pointer}` : at,
          ...(p.externalId !== undefined ? { externalId: p.externalId } : {}),
          message: scrubSecrets(`${p.field ? `${p.field}: ` : ''}${p.message}`),
        };
      }),
    };
  }

  /** The latest sales, newest first. */
  private async sales(): Promise<SaleView[]> {
    let entries: Awaited<ReturnType<SalesLedger['latest']>>;
    try {
      entries = await this.salesLedger.latest(MAX_SALES);
    } catch {
      return [];
    }
    return entries.map((e) => {
      const title = this.titleOf(e.kind, e.external_id) ?? (typeof e.title === 'string' ? e.title : undefined);
      return {
        kind: e.kind,
        externalId: e.external_id,
        ...(title ? { title } : {}),
        status: e.status ?? 'sold',
        at: e.sold_at ?? e.seen_at ?? '',
        ...(typeof e.quantity === 'number' ? { quantity: e.quantity } : {}),
      };
    });
  }
}

function flat(counts: RunReport['counts']): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [kind, row] of Object.entries(counts))
    for (const [k, n] of Object.entries(row)) if (n > 0) out[`${kind}.${k}`] = n;
  return out;
}
