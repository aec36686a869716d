// What the status page shows, gathered: the daemon's recent runs (with why, requests and duration, which the
// state db does not keep), one classification of what is wrong (offers that failed or wait in backoff, with where
// they are in the catalogue; invalid offers in the catalogue), how many catalogue offers match the marketplace, the
// latest sales (sold.jsonl, or the state db with PostgreSQL; each once), offers by kind and status, the rate and
// the queue; and one offer's page.
// Read-only: it reads the state db and never writes.
import { fileLineColumn } from '../catalogue/catalogue-problem.ts';
import { scrubSecrets } from '../log/scrubber.ts';
import { STATE_KINDS, type OfferEvent, type OfferSearchHit, type StateKind } from '../state/records.ts';
import type { StateStore } from '../state/state-store.ts';
import { isLocked } from '../sync/plan/locked-status.ts';
import { loadBackoffs } from '../sync/plan/offer-backoff.ts';
import type { CatalogueView } from '../sync/plan/catalogue-view.ts';
import { flatCounts, type RunReport } from '../sync/report/run-report.ts';
import type { GuardStop } from '../sync/plan/guard-stop.ts';
import type { SalesLedger } from '../sales/sales-ledger.ts';
import { SOLD_AT_SOURCES, type SoldAtSource, type SoldEntry } from '../sales/sold-log.ts';
import { scrubCredentials } from '../notify/notification.ts';

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
  /** failed, blocked: this run; backoff: refused before and not sent again until its time (or entry) comes. */
  readonly state: 'failed' | 'blocked' | 'backoff';
  readonly title?: string;
  readonly message: string;
  /** Catalogue file and line (file:line[:column]) when known. */
  readonly where?: string;
  /** Backoff: when it is sent again (epoch ms), null when parked until its entry changes. */
  readonly nextAttemptAt?: number | null;
}

export interface CatalogueErrorView {
  readonly where: string;
  readonly kind?: string;
  readonly externalId?: string;
  readonly message: string;
}

export interface SaleView {
  readonly kind: string;
  readonly externalId: string;
  readonly title?: string;
  readonly status: string;
  /** Epoch ms of the sale, null when the line gives none. */
  readonly at: number | null;
  /** The marketplace's sale time, or when offersync saw it (lines written before sold_at_source: unknown). */
  readonly atSource: SoldAtSource | 'unknown';
  /** Items and top-ups: units sold. */
  readonly quantity?: number;
  /** Cents (of one unit for items and top-ups). */
  readonly price: number | null;
  readonly currency: string | null;
}

/** Who the page is about: the shop's name when configured (notify.seller), and its seller id. */
export interface SellerView {
  /** notify.seller; null when not set. */
  readonly name: string | null;
  /** The configuration's seller id ('default' without a sellers: list). */
  readonly id: string;
}

/** When the daemon runs next on its own (a catalogue change also starts a run at once). */
export interface ScheduleView {
  /** Epoch ms of the next incremental run (schedule.tick), null when none is scheduled. */
  readonly nextTick: number | null;
  /** Epoch ms of the next full sweep (schedule.fullSweep). */
  readonly nextSweep: number | null;
}

/** How many of the catalogue's offers the marketplace shows as the catalogue says. */
export interface MatchView {
  readonly matching: number;
  /** Offers in the catalogue, the invalid ones included. */
  readonly total: number;
  /** Of the rest: sold, refunded or processing (the marketplace owns them now). */
  readonly locked: number;
}

/**
 * What is wrong, classified once: the page's headline and its sections both come from these counts, so that they
 * cannot disagree. `failed` counts failed and blocked offers, `held` those in backoff, `invalid` the catalogue's
 * errors (offers the catalogue states wrongly, never sent: not failures of the marketplace).
 */
export interface TroubleCounts {
  readonly failed: number;
  readonly held: number;
  readonly invalid: number;
}

export interface StatusView {
  readonly seller: SellerView;
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
    readonly schedule?: ScheduleView;
    /** While a run writes: the writes it has left, and how long they take at the queue's rate now. */
    readonly work?: { readonly left: number; readonly seconds: number } | null;
  };
  readonly trouble: TroubleCounts;
  readonly match: MatchView | null;
  readonly offers: readonly { readonly kind: string; readonly byStatus: Readonly<Record<string, number>> }[];
  readonly runs: readonly RunView[];
  /** Failed, blocked and held offers, the first MAX_LISTED. */
  readonly problems: readonly ProblemView[];
  /** The first MAX_LISTED of `trouble.invalid`. */
  readonly catalogueErrors: readonly CatalogueErrorView[];
  readonly sales: readonly SaleView[];
  readonly queue: QueueView | null;
}

/** One offer, for its own page. */
export interface OfferPageView {
  readonly seller: SellerView;
  readonly generatedAt: number;
  readonly kind: StateKind;
  readonly externalId: string;
  readonly title: string | null;
  /** Known to the state db (sent, adopted or seen sold); false: nothing is known of it. */
  readonly known: boolean;
  readonly remoteId: number | null;
  readonly remoteStatus: string | null;
  /** The fields offersync last sent (API names; never credentials), null when never sent. */
  readonly lastSent: Readonly<Record<string, unknown>> | null;
  /** Its catalogue file and line, when the catalogue of the last run has it. */
  readonly where: string | null;
  /** Failed, blocked or held back, as on the status page. */
  readonly problem: ProblemView | null;
  readonly catalogueErrors: readonly CatalogueErrorView[];
  /** Oldest first. */
  readonly history: readonly OfferEvent[];
}

export interface SearchView {
  readonly seller: SellerView;
  readonly query: string;
  /** The first SEARCH_SHOWN of them. */
  readonly hits: readonly OfferSearchHit[];
  /** How many offers match, counted up to SEARCH_COUNTED; `atLeast` when there may be more. */
  readonly found: { readonly count: number; readonly atLeast: boolean };
}

/** Offers a search lists; the rest are counted, up to SEARCH_COUNTED, so the count said is true. */
export const SEARCH_SHOWN = 20;
const SEARCH_COUNTED = 100;

export type BoardStore = Pick<
  StateStore,
  'listOffers' | 'listRuns' | 'getMeta' | 'setMeta' | 'getOffer' | 'offerHistory' | 'searchOffers'
>;

const MAX_RUNS = 15;
const MAX_LISTED = 50;
const MAX_SALES = 20;
const HISTORY_SHOWN = 50;

export function isStateKind(kind: string): kind is StateKind {
  return (STATE_KINDS as readonly string[]).includes(kind);
}

export class StatusBoard {
  private readonly runs: RunView[] = [];
  private catalogue: CatalogueView | undefined;
  private lastReport: RunReport | undefined;
  /** Counted from the state db's offers once per run, at the first view after it: a view every refresh is cheap. */
  private counted: { readonly offers: StatusView['offers']; readonly match: MatchView | null } | undefined;

  constructor(
    // setMeta only because loadBackoffs' type asks for it: the board never writes.
    private readonly store: BoardStore,
    /** Where the seller's sales are kept (sales-ledger.ts). */
    private readonly salesLedger: Pick<SalesLedger, 'latest'>,
    private readonly seller: SellerView,
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
      counts: flatCounts(r.counts),
    });
    this.runs.length = Math.min(this.runs.length, MAX_RUNS);
    this.catalogue = result.catalogue;
    this.lastReport = r;
    this.counted = undefined; // counted again at the next view
  }

  async view(daemon: StatusView['daemon'], queue: QueueView | null, now = Date.now()): Promise<StatusView> {
    const problems = await this.problems();
    if (!this.counted) {
      const records = await this.store.listOffers();
      this.counted = { offers: countOffers(records), match: this.match(records, problems) };
    }
    const errors = this.catalogueErrors();
    return {
      seller: this.seller,
      generatedAt: now,
      refreshSeconds: this.refreshSeconds,
      daemon: { ...daemon, lastError: daemon.lastError === null ? null : scrubSecrets(daemon.lastError) },
      trouble: {
        failed: problems.filter((p) => p.state !== 'backoff').length,
        held: problems.filter((p) => p.state === 'backoff').length,
        invalid: errors.length,
      },
      match: this.counted.match,
      offers: this.counted.offers,
      runs: await this.mergedRuns(),
      problems: problems.slice(0, MAX_LISTED),
      catalogueErrors: errors.slice(0, MAX_LISTED),
      sales: await this.sales(),
      queue,
    };
  }

  /** One offer: what offersync last sent, where it stands, and its history. */
  async offerView(kind: StateKind, externalId: string, now = Date.now()): Promise<OfferPageView> {
    const [rec, history, problems] = await Promise.all([
      this.store.getOffer(kind, externalId),
      this.store.offerHistory(kind, externalId, HISTORY_SHOWN),
      this.problems(),
    ]);
    const sent = rec?.lastApplied ?? null;
    const sentTitle = sent?.title ?? sent?.offer_title;
    return {
      seller: this.seller,
      generatedAt: now,
      kind,
      externalId,
      title: this.titleOf(kind, externalId) ?? (typeof sentTitle === 'string' ? sentTitle : null),
      known: rec !== undefined || history.length > 0,
      remoteId: rec?.remoteId ?? null,
      remoteStatus: rec?.remoteStatus ?? null,
      lastSent: sent,
      where: this.whereOf(kind, externalId) ?? null,
      problem: problems.find((p) => p.kind === kind && p.externalId === externalId) ?? null,
      catalogueErrors: this.catalogueErrors().filter((e) => e.kind === kind && e.externalId === externalId),
      history,
    };
  }

  async search(query: string): Promise<SearchView> {
    const q = query.trim().slice(0, 200);
    const all = q === '' ? [] : await this.store.searchOffers(q, SEARCH_COUNTED);
    return {
      seller: this.seller,
      query: q,
      hits: all.slice(0, SEARCH_SHOWN),
      found: { count: all.length, atLeast: all.length >= SEARCH_COUNTED },
    };
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

  /**
   * Catalogue offers the marketplace shows as written: known there, not sold, and neither failed, held back nor
   * invalid. Null before the first run (no catalogue read yet).
   */
  private match(
    records: Awaited<ReturnType<StateStore['listOffers']>>,
    problems: readonly ProblemView[],
  ): MatchView | null {
    const c = this.catalogue;
    if (!c) return null;
    const byKey = new Map(records.map((r) => [`${r.kind}:${r.externalId}`, r]));
    const troubled = new Set(problems.map((p) => `${p.kind}:${p.externalId}`));
    const keys = new Set(c.offers.map((o) => `${o.kind}:${o.externalId}`));
    for (const o of c.invalidOffers) keys.add(`${o.kind}:${o.externalId}`);
    let matching = 0;
    let locked = 0;
    for (const o of c.offers) {
      const key = `${o.kind}:${o.externalId}`;
      const rec = byKey.get(key);
      if (!rec || rec.remoteId === null || troubled.has(key)) continue;
      if (isLocked(rec.remoteStatus)) locked++;
      else matching++;
    }
    return { matching, total: keys.size, locked };
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

  /** Failed and blocked in the last run, then held back by their backoff. Catalogue errors are not here. */
  private async problems(): Promise<ProblemView[]> {
    const out: ProblemView[] = [];
    const seen = new Set<string>();
    for (const o of this.lastReport?.outcomes ?? []) {
      // The catalogue's errors are the run's 'invalid' outcomes (their own section), never failed ones.
      if (o.outcome !== 'failed' && o.outcome !== 'blocked') continue;
      if (o.kind === 'file') continue;
      const key = `${o.kind}:${o.externalId}`;
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
    return out;
  }

  /** The catalogue's errors, then its warnings (marked so): a warning shown only by `validate` reaches no one. */
  private catalogueErrors(): CatalogueErrorView[] {
    const problems = this.catalogue?.problems ?? [];
    return [...problems.filter((p) => p.severity === 'error'), ...problems.filter((p) => p.severity === 'warning')].map(
      (p) => {
        const at = fileLineColumn(p.file, p);
        return {
          where: p.pointer ? `${at} ${p.pointer}` : at,
          ...(p.kind !== undefined ? { kind: p.kind } : {}),
          ...(p.externalId !== undefined ? { externalId: p.externalId } : {}),
          message: scrubSecrets(
            `${p.severity === 'warning' ? 'warning: ' : ''}${p.field ? `${p.field}: ` : ''}${p.message}`,
          ),
        };
      },
    );
  }

  /** The latest sales, newest first, each once (a sale told by two runs is one). */
  private async sales(): Promise<SaleView[]> {
    let entries: readonly SoldEntry[];
    try {
      // More than shown: the repeats of a sale are dropped.
      entries = await this.salesLedger.latest(MAX_SALES * 3);
    } catch {
      return [];
    }
    const out: SaleView[] = [];
    const told = new Set<string>();
    for (const entry of entries) {
      const sale = saleOf(entry as unknown as Record<string, unknown>);
      if (!sale || told.has(sale.key)) continue;
      told.add(sale.key);
      const title = this.titleOf(sale.view.kind, sale.view.externalId) ?? sale.view.title;
      out.push({ ...sale.view, ...(title ? { title } : {}) });
      if (out.length >= MAX_SALES) break;
    }
    return out;
  }
}

/**
 * A sale (a sold.jsonl line, as the ledger reads it back) as the page shows it, and its identity: its sale_key, or
 * for lines written before it the same parts (a line of units without its count names itself only).
 */
export function saleOf(e: Record<string, unknown>): { readonly key: string; readonly view: SaleView } | undefined {
  if (typeof e.kind !== 'string' || typeof e.external_id !== 'string') return undefined;
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);
  const status = str(e.status) ?? 'sold';
  const soldAt = str(e.sold_at);
  const at = Date.parse(soldAt ?? str(e.seen_at) ?? '');
  const source = str(e.sold_at_source);
  const quantity = int(e.quantity);
  const title = str(e.title);
  const key =
    str(e.sale_key) ??
    (quantity === undefined
      ? `${e.kind}:${String(e.id)}:${status}${soldAt ? `:${soldAt}` : ''}`
      : `${e.kind}:${String(e.id)}:seen:${String(e.seen_at)}`);
  return {
    key,
    view: {
      kind: e.kind,
      externalId: e.external_id,
      ...(title ? { title } : {}),
      status,
      at: Number.isFinite(at) ? at : null,
      atSource:
        source !== undefined && (SOLD_AT_SOURCES as readonly string[]).includes(source)
          ? (source as SoldAtSource)
          : soldAt
            ? 'marketplace'
            : 'unknown',
      ...(quantity !== undefined ? { quantity } : {}),
      price: int(e.price) ?? null,
      currency: str(e.currency) ?? null,
    },
  };
}

function countOffers(records: Awaited<ReturnType<StateStore['listOffers']>>): StatusView['offers'] {
  const byKind = new Map<string, Record<string, number>>();
  for (const o of records) {
    const row = byKind.get(o.kind) ?? {};
    byKind.set(o.kind, row);
    const status = o.remoteStatus ?? 'unknown';
    row[status] = (row[status] ?? 0) + 1;
  }
  return [...byKind].map(([kind, byStatus]) => ({ kind, byStatus }));
}
