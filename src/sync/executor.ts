// The executor: carries a Plan out and decides nothing. Every request goes through the client's rate-aware
// queue, every write is journaled before it is sent, and every action ends in one outcome. Order: noops and
// adoptions (state only), uploads, then creates and updates, archives last.
import type { Logger } from '../log/logger.ts';
import type { MarketplaceClient } from '../marketplace/marketplace-client.ts';
import type { StateStore } from '../state/state-store.ts';
import { EXECUTOR_WINDOW, forEachLimit } from './for-each-limit.ts';
import type { OfferBackoffs } from './offer-backoff.ts';
import { offerKey } from './offer-key.ts';
import {
  type AdoptAction,
  type ArchiveAction,
  type CreateAction,
  type Plan,
  stoppedByGuard,
  type UpdateAction,
} from './plan.ts';
import { recordSoldCounts } from './record-sold-counts.ts';
import { recordAdopt, recordNoop } from './record-noops.ts';
import { archiveOne } from './route-archive.ts';
import { bulkArchive, bulkUpdate } from './route-bulk.ts';
import { runCreate } from './route-create.ts';
import { runUpdate } from './route-update.ts';
import { RunContext } from './run-context.ts';
import type { OfferOutcome } from './run-report.ts';
import type { SoldEntry } from './sold-log.ts';
import { seen } from './offer-events.ts';
import { salesLedger } from './sales-ledger.ts';
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
}

interface OfferWork {
  adopt?: AdoptAction;
  create?: CreateAction;
  update?: UpdateAction;
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
  const perOffer = new Map<string, OfferWork>();
  const archives: ArchiveAction[] = [];
  const uploads = plan.actions.filter((a) => a.type === 'upload');
  await ctx.inTransaction(async () => {
    for (const a of plan.actions) if (a.type === 'noop') await recordNoop(ctx, a);
  });
  for (const a of plan.actions) {
    if (a.type === 'archive') archives.push(a);
    if (a.type !== 'adopt' && a.type !== 'create' && a.type !== 'update') continue;
    const key = offerKey(a.kind, a.externalId);
    const work = perOffer.get(key) ?? {};
    if (a.type === 'adopt') work.adopt = a;
    else if (a.type === 'create') work.create = a;
    else work.update = a;
    perOffer.set(key, work);
  }
  ctx.total = uploads.length + perOffer.size + archives.length;

  for (const sha of await uploadImages(ctx, uploads, deps.readImage, deps.signal)) ctx.failedUploads.add(sha);
  await ctx.inTransaction(async () => {
    for (const w of perOffer.values()) if (w.adopt) await recordAdopt(ctx, w.adopt, !w.update);
    ctx.sold.push(...(await recordSales(ctx, plan, seenAt)));
  });
  const bulkUpdates: UpdateAction[] = [];
  const tasks: (() => Promise<void>)[] = [];
  for (const { create, update } of perOffer.values()) {
    if (create) tasks.push(() => runCreate(ctx, create));
    else if (update?.route.via === 'bulk-update') bulkUpdates.push(update);
    else if (update) {
      const route = update.route;
      tasks.push(() => runUpdate(ctx, update, route));
    }
  }
  if (bulkUpdates.length > 0) tasks.push(() => bulkUpdate(ctx, bulkUpdates));
  await forEachLimit(tasks, EXECUTOR_WINDOW, (task) => task(), deps.signal);
  // Archives go last. They are not skipped when another offer failed: a removed offer left listed can be
  // sold twice, and the listing's completeness is already checked by the planner.
  if (!deps.signal?.aborted) {
    await Promise.all([
      forEachLimit(
        archives.filter((a) => a.route.via === 'single'),
        EXECUTOR_WINDOW,
        (a) => archiveOne(ctx, a),
      ),
      bulkArchive(ctx, archives),
    ]);
  }
  await sales.record(ctx.sold);
  return ctx.outcomes;
}
