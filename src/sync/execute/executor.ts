// The executor: carries a Plan out and decides nothing. Every request goes through the client's rate-aware
// queue, every write is journaled before it is sent, and every action ends in one outcome. Order: noops and
// adoptions (state only), then in the order of money at risk (plan/money-rank.ts): archives, stock decreases and
// prices at once, uploads, then creates and the rest.
import type { Logger } from '../../log/logger.ts';
import type { MarketplaceClient } from '../../marketplace/marketplace-client.ts';
import type { StateStore } from '../../state/state-store.ts';
import { EXECUTOR_WINDOW, forEachLimit } from '../for-each-limit.ts';
import type { OfferBackoffs } from '../plan/offer-backoff.ts';
import { byMoney, losesMoneyWhenLate, moneyIndex } from '../plan/money-rank.ts';
import { offerKey } from '../../catalogue/identity.ts';
import type { RunTurn } from './offer-turns.ts';
import {
  type AdoptAction,
  type ArchiveAction,
  type CreateAction,
  type Plan,
  type SingleUpdateRoute,
  stoppedByGuard,
  type UpdateAction,
} from '../plan/plan-actions.ts';
import { recordSoldCounts } from '../../sales/record-sold-counts.ts';
import { recordAdopt, recordNoop } from './record-noops.ts';
import { archiveOne } from './route-archive.ts';
import { bulkArchive, bulkUpdate } from './route-bulk.ts';
import { runCreate } from './route-create.ts';
import { runUpdate } from './route-update.ts';
import type { ClockSamples } from '../plan/marketplace-clocks.ts';
import { RunContext } from './run-context.ts';
import type { OfferOutcome } from '../report/run-report.ts';
import type { SoldEntry } from '../../sales/sold-log.ts';
import { seen } from './offer-events.ts';
import { salesLedger } from '../../sales/sales-ledger.ts';
import { type ReadImage, uploadImages } from './upload-images.ts';

export interface ExecutorOptions {
  /** Creates re-tried after a lookup proved the previous attempt did not land. */
  readonly createAttempts: number;
}

export interface ExecutorDeps {
  readonly client: MarketplaceClient;
  readonly store: StateStore;
  readonly logger: Logger;
  readonly runId: string;
  readonly statePath: string;
  /** Sales go to the state db (PostgreSQL), else to sold.jsonl beside statePath (sales-ledger.ts). */
  readonly salesInState?: boolean;
  readonly options: ExecutorOptions;
  readonly onProgress?: (done: number, total: number) => void;
  readonly readImage?: ReadImage;
  /** Aborted (a signal, a lost lease): no further write is started; those in flight finish. */
  readonly signal?: AbortSignal;
  /** Per-offer backoff of refused offers. */
  readonly backoffs?: OfferBackoffs;
  /** A refused capability older than this is probed again. */
  readonly reprobeAfterMs?: number;
  readonly now?: () => number;
  /** Learns the marketplace's clocks from the stamps of the run's writes. */
  readonly clocks?: ClockSamples;
  /** This run's turn among runs that share the queue: a later run's plan of an offer replaces this one's. */
  readonly turn?: RunTurn;
}

export async function execute(plan: Plan, deps: ExecutorDeps): Promise<OfferOutcome[]> {
  const ctx = new RunContext({ ...deps, createAttempts: deps.options.createAttempts });
  try {
    return await executeIn(ctx, plan, deps);
  } finally {
    // What the run did is told whatever stopped it.
    await ctx.flushEvents();
  }
}

/** Records the sales of units the lists showed, and tells each in its offer's story. */
async function recordSales(ctx: RunContext, plan: Plan, seenAt: Date): Promise<SoldEntry[]> {
  const sold = await recordSoldCounts(ctx.store, plan.soldCounts, seenAt);
  for (const s of sold)
    if (s.quantity !== undefined && (s.kind === 'item' || s.kind === 'topup'))
      ctx.event(seen(s.kind, s.external_id, 'sold', null, s.quantity));
  return sold;
}

async function executeIn(ctx: RunContext, plan: Plan, deps: ExecutorDeps): Promise<OfferOutcome[]> {
  const seenAt = new Date(deps.now?.() ?? Date.now());
  const sales = salesLedger(deps.salesInState ?? false, deps.statePath, deps.store);
  if (stoppedByGuard(plan)) {
    // Sales are news whatever the guard says: told now, not held until the catalogue is fixed.
    await sales.record(await ctx.inTransaction(() => recordSales(ctx, plan, seenAt)));
    if (plan.guard.tripped) {
      const { archives, limit, rule } = plan.guard;
      deps.logger.error({ archives, limit, rule }, 'mass-archive guard tripped: nothing sent');
    }
    if (plan.priceGuard.tripped) {
      const { priced, limit, rule } = plan.priceGuard;
      const suspect = plan.priceGuard.suspect.length;
      deps.logger.error({ priced, suspect, limit, rule }, 'price guard tripped: nothing sent');
    }
    return ctx.outcomes;
  }
  // The plan's actions by what runs them, as references into the plan: no map of every offer nor a closure per
  // offer (a first sync of 100,000 creates held both for the whole run).
  const archives: ArchiveAction[] = [];
  const adopts: AdoptAction[] = [];
  const sends: (CreateAction | UpdateAction)[] = [];
  const bulkUpdates: UpdateAction[] = [];
  const uploads = plan.actions.filter((a) => a.type === 'upload');
  await ctx.inTransaction(async () => {
    for (const a of plan.actions) if (a.type === 'noop') await recordNoop(ctx, a);
  });
  for (const a of plan.actions) {
    if (a.type === 'archive') archives.push(a);
    else if (a.type === 'adopt') adopts.push(a);
    else if (a.type === 'create') sends.push(a);
    else if (a.type === 'update') (a.route.via === 'bulk-update' ? bulkUpdates : sends).push(a);
  }
  // An offer has one create or one update at most; an adoption is followed by its offer's update, if any, and is
  // then reported with it (one outcome per offer).
  const adopted = new Set(adopts.map((a) => offerKey(a.kind, a.externalId)));
  const updatedAdopted = new Set<string>();
  if (adopted.size > 0)
    for (const u of [...sends, ...bulkUpdates]) {
      const key = offerKey(u.kind, u.externalId);
      if (u.type === 'update' && adopted.has(key)) updatedAdopted.add(key);
    }
  ctx.total = uploads.length + sends.length + bulkUpdates.length + adopted.size - updatedAdopted.size + archives.length;
  const turn = deps.turn;
  if (turn?.claims) turn.turns.claim(turn.epoch, [...archives, ...sends, ...bulkUpdates]);

  await ctx.inTransaction(async () => {
    for (const a of adopts) await recordAdopt(ctx, a, !updatedAdopted.has(offerKey(a.kind, a.externalId)));
    ctx.sold.push(...(await recordSales(ctx, plan, seenAt)));
  });
  // A write that landed on an offer it was not meant for halts the run: nothing else is started.
  const stop = deps.signal ? AbortSignal.any([deps.signal, ctx.haltSignal]) : ctx.haltSignal;
  const inTurn = turnOf(ctx, turn);
  // What loses money when late goes first, while the uploads run: archives (not skipped when another offer
  // fails: a removed offer left listed can be sold twice, and the planner checked the listing is complete), and
  // the stock decreases and prices that wait for no image. Their requests outrank the rest in the queue too.
  const early = (a: CreateAction | UpdateAction): boolean =>
    a.type === 'update' &&
    !a.imagesPending &&
    !updatedAdopted.has(offerKey(a.kind, a.externalId)) &&
    losesMoneyWhenLate(a);
  const money = byMoney(sends.filter(early));
  const first = stop.aborted
    ? Promise.resolve()
    : Promise.all([
        forEachLimit(
          archives.filter((a) => a.route.via === 'single'),
          EXECUTOR_WINDOW,
          (a) => inTurn([a], () => archiveOne(ctx, a)),
          stop,
        ),
        inTurn(
          archives.filter((a) => a.route.via !== 'single'),
          (kept) => bulkArchive(ctx, kept),
        ),
        forEachLimit(money, EXECUTOR_WINDOW, (a) => inTurn([a], () => runSingle(ctx, a)), stop),
      ]);
  // Awaited below; handled now too, so that a failure while the uploads run is no unhandled rejection.
  first.catch(() => undefined);
  try {
    for (const sha of await uploadImages(ctx, uploads, deps.readImage, deps.signal)) ctx.failedUploads.add(sha);
    // The bulk updates as one task, at the place of their most urgent element; then the rest in money order.
    const rest = byMoney(sends.filter((a) => !early(a)));
    const bulkAt = bulkUpdates.length === 0 ? -1 : Math.min(...bulkUpdates.map(moneyIndex));
    const at = bulkAt < 0 ? rest.length : rest.findIndex((a) => moneyIndex(a) > bulkAt);
    const ordered: (CreateAction | UpdateAction | null)[] = [...rest];
    if (bulkAt >= 0) ordered.splice(at < 0 ? rest.length : at, 0, null);
    await forEachLimit(
      ordered,
      EXECUTOR_WINDOW,
      (a) => (a === null ? inTurn(bulkUpdates, (kept) => bulkUpdate(ctx, kept)) : inTurn([a], () => runSingle(ctx, a))),
      stop,
    );
  } finally {
    await first;
  }
  await sales.record(ctx.sold);
  const halted = ctx.halted;
  if (halted) throw halted;
  return ctx.outcomes;
}

function runSingle(ctx: RunContext, a: CreateAction | UpdateAction): Promise<void> {
  return a.type === 'create' ? runCreate(ctx, a) : runUpdate(ctx, a, a.route as SingleUpdateRoute);
}

type Offers<A> = readonly A[];
type InTurn = <A extends ArchiveAction | CreateAction | UpdateAction>(
  offers: Offers<A>,
  write: (kept: Offers<A>) => Promise<void>,
) => Promise<void>;

/**
 * Writes offers in this run's turn (execute/offer-turns.ts): those a later run's plan claimed are reported skipped and
 * not sent; the others wait for any write of them in flight. Without a turn, the write goes as it is.
 */
function turnOf(ctx: RunContext, turn: RunTurn | undefined): InTurn {
  return async (offers, write) => {
    if (offers.length === 0) return;
    if (!turn) return write(offers);
    const skip = (a: ArchiveAction | CreateAction | UpdateAction): void =>
      ctx.report({
        kind: a.kind,
        externalId: a.externalId,
        outcome: 'skipped',
        ...(a.type === 'archive' ? {} : { file: a.desired.source.file }),
        reason: 'a newer catalogue change was planned and sent for it first',
      });
    const kept = offers.filter((a) => {
      const later = turn.turns.supersededBy(turn.epoch, a.kind, a.externalId) !== undefined;
      if (later) skip(a);
      return !later;
    });
    if (kept.length === 0) return;
    const ran = await turn.turns.take(turn.epoch, kept, () => write(kept));
    if (!ran) for (const a of kept) skip(a);
  };
}
