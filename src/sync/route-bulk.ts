// Bulk routes: top-up updates and archives through POST /top-ups/bulk-update, account archives through
// POST /accounts/bulk-remove. Neither's limits nor answer are documented: the first batch probes the route
// (capability-gate.ts), a refusal of the route or body shape sends every element by its own route, and
// per-offer outcomes are read where the answer gives them.
import type { OfferKind } from '../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../marketplace/marketplace-client.ts';
import { CAPABILITIES, type CapabilityName, isCapabilityRefusal } from './capabilities.ts';
import { errorMessage, failure, isDefinitelyNotFound, statusOf } from './errors.ts';
import { type ExecutionContext, PRIORITY } from './execution-context.ts';
import { EXECUTOR_WINDOW, forEachLimit } from './for-each-limit.ts';
import type { OfferFields } from './offer-fields.ts';
import type { ArchiveAction, UpdateAction } from './plan.ts';
import { changesToBody } from './request-body.ts';
import { confirmThroughList } from './confirm-through-list.ts';
import { alreadyGone, archived, archiveOne } from './route-archive.ts';
import { runUpdate } from './route-update.ts';

interface BulkRoute<E, R> {
  readonly capability: CapabilityName;
  readonly op: 'bulk-update' | 'bulk-remove';
  readonly kind: OfferKind;
  readonly name: string;
  readonly refusedLog: string;
  send(batch: readonly E[]): Promise<R>;
  settle(batch: readonly E[], answer: R): Promise<void>;
  /** The element by its own route. */
  single(e: E): Promise<void>;
}

/** Sends each batch by the bulk route, in the window; the first one probes a route never tried. */
async function runBatches<E extends { readonly externalId: string }, R>(
  ctx: ExecutionContext,
  batches: readonly (readonly E[])[],
  route: BulkRoute<E, R>,
): Promise<void> {
  await forEachLimit(batches, EXECUTOR_WINDOW, async (batch) => {
    let answer: { readonly answer: R } | null;
    try {
      answer = await ctx.capabilities.call<{ readonly answer: R } | null>({
        capability: route.capability,
        attempt: async () => ({
          answer: await ctx.journaled(
            route.op,
            route.kind,
            batch.map((e) => e.externalId),
            () => route.send(batch),
          ),
        }),
        refusal: async (err) => {
          if (!isCapabilityRefusal(err)) return null;
          ctx.logger.warn({ status: statusOf(err) }, route.refusedLog);
          return `${statusOf(err)}: ${errorMessage(err)}`;
        },
        fallback: async () => {
          await forEachLimit(batch, EXECUTOR_WINDOW, (e) => route.single(e));
          return null;
        },
        proberFallsBack: true,
      });
    } catch (err) {
      const outcome = failure(err, `${route.name} failed: `);
      for (const e of batch) ctx.report({ kind: route.kind, externalId: e.externalId, ...outcome });
      return;
    }
    if (answer) await route.settle(batch, answer.answer);
  });
}

/** Groups actions by their planned batch number, in batch order. */
function byBatch<A extends { readonly route: { readonly via: string; readonly batch?: number } }>(
  actions: readonly A[],
): A[][] {
  const batches = new Map<number, A[]>();
  for (const a of actions) {
    const n = a.route.batch ?? 0;
    const batch = batches.get(n) ?? [];
    batch.push(a);
    batches.set(n, batch);
  }
  return [...batches.entries()].sort(([x], [y]) => x - y).map(([, b]) => b);
}

interface TopUpElement {
  readonly externalId: string;
  readonly remoteId: number;
  readonly body: OfferFields;
  onOk(offer: RemoteOffer): Promise<void>;
  single(): Promise<void>;
}

function topUpBulkUpdate(ctx: ExecutionContext, batches: readonly (readonly TopUpElement[])[]): Promise<void> {
  return runBatches(ctx, batches, {
    capability: CAPABILITIES.topUpBulkUpdate,
    op: 'bulk-update',
    kind: 'topup',
    name: 'bulk-update',
    refusedLog: 'bulk-update refused: top-ups are sent one by one',
    send: (batch) =>
      ctx.client.topUps.bulkUpdate(
        batch.map((e) => ({ id: e.remoteId, external_id: e.externalId, ...e.body })),
        { priority: PRIORITY.update },
      ),
    settle: async (batch, res) => {
      // No per-offer outcomes and counts that do not say all were updated: read them back from the list.
      if (!res.outcomes && res.counts?.updated !== batch.length) return confirmUpdated(ctx, batch);
      for (const e of batch) {
        const o = res.outcomes?.get(e.externalId);
        if (o && !o.ok) {
          const message = `bulk-update: ${o.message ?? 'refused'}`;
          ctx.report({ kind: 'topup', externalId: e.externalId, outcome: 'failed', message });
          continue;
        }
        const status = e.body.status;
        await e.onOk(
          o?.offer ?? { id: e.remoteId, externalId: e.externalId, ...(status ? { status } : {}), fields: {} },
        );
      }
    },
    single: (e) => e.single(),
  });
}

/** Top-up updates planned through bulk-update. */
export function bulkUpdateTopUps(ctx: ExecutionContext, updates: readonly UpdateAction[]): Promise<void> {
  const elements = byBatch(updates).map((batch) =>
    batch.map((a): TopUpElement => {
      const sent = changesToBody(a.changes);
      return {
        externalId: a.externalId,
        remoteId: a.remoteId,
        body: sent,
        onOk: async (offer) => {
          await ctx.applied(a.desired, offer, sent, a.fields);
          const outcome = a.reason === 'adopted' ? 'adopted' : 'updated';
          const file = a.desired.source.file;
          ctx.report({ kind: 'topup', externalId: a.externalId, outcome, file, fields: Object.keys(sent) });
        },
        single: () => runUpdate(ctx, a, { via: 'patch', ifRefused: 'fail' }),
      };
    }),
  );
  return topUpBulkUpdate(ctx, elements);
}

/** Archives planned through a bulk route: top-ups through bulk-update, accounts through bulk-remove. */
export async function bulkArchive(ctx: ExecutionContext, archives: readonly ArchiveAction[]): Promise<void> {
  const topUps = archives.filter((a) => a.route.via === 'bulk-update');
  const accounts = archives.filter((a) => a.route.via === 'bulk-remove');
  const topUpBatches = byBatch(topUps).map((batch) =>
    batch.map(
      (a): TopUpElement => ({
        externalId: a.externalId,
        remoteId: a.remoteId,
        body: { status: 'archived' },
        onOk: () => archived(ctx, a),
        single: () => archiveOne(ctx, a),
      }),
    ),
  );
  await Promise.all([topUpBulkUpdate(ctx, topUpBatches), bulkRemoveAccounts(ctx, byBatch(accounts))]);
}

function bulkRemoveAccounts(ctx: ExecutionContext, batches: readonly (readonly ArchiveAction[])[]): Promise<void> {
  return runBatches(ctx, batches, {
    capability: CAPABILITIES.accountBulkRemove,
    op: 'bulk-remove',
    kind: 'account',
    name: 'bulk-remove',
    refusedLog: 'bulk-remove refused: archiving accounts one by one',
    send: (batch) =>
      ctx.client.accounts.bulkRemove({ ids: batch.map((a) => a.remoteId) }, { priority: PRIORITY.archive }),
    settle: async (batch, res) => {
      if (res.removed === batch.length) {
        for (const a of batch) await archived(ctx, a);
        return;
      }
      // The counts do not say which ones: read them back from the list, not one GET each.
      await confirmArchived(ctx, batch);
    },
    single: (a) => archiveOne(ctx, a),
  });
}

async function confirmRemoved(ctx: ExecutionContext, a: ArchiveAction): Promise<void> {
  let live: RemoteOffer;
  try {
    live = await ctx.client.accounts.get({ id: a.remoteId }, { priority: PRIORITY.archive });
  } catch (err) {
    if (isDefinitelyNotFound(err)) return alreadyGone(ctx, a);
    return ctx.report({ kind: a.kind, externalId: a.externalId, ...failure(err, 'bulk-remove left it unconfirmed: ') });
  }
  if (live.status === 'archived') await archived(ctx, a);
  else await archiveOne(ctx, a);
}

/** The top-ups a bulk-update did not itemise: those the list shows changed are done, the rest go singly. */
async function confirmUpdated(ctx: ExecutionContext, batch: readonly TopUpElement[]): Promise<void> {
  let live: Map<number, RemoteOffer>;
  try {
    live = await confirmThroughList(
      ctx,
      'topup',
      batch.map((e) => e.remoteId),
    );
  } catch (err) {
    const outcome = failure(err, 'bulk-update left it unconfirmed: ');
    for (const e of batch) ctx.report({ kind: 'topup', externalId: e.externalId, ...outcome });
    return;
  }
  await forEachLimit(batch, EXECUTOR_WINDOW, async (e) => {
    const o = live.get(e.remoteId);
    if (o && shows(o, e.body)) await e.onOk(o);
    else await e.single();
  });
}

/** Whether the live offer carries what was sent (a field the list does not echo is taken as sent). */
function shows(o: RemoteOffer, body: OfferFields): boolean {
  return Object.entries(body).every(([f, v]) =>
    f === 'status' ? o.status === v : o.fields[f] === undefined || o.fields[f] === v,
  );
}

/**
 * The accounts a bulk-remove did not itemise: archived in the list, done; listed still, or not among the
 * offers just changed, archived singly (archiving twice archives once; a 404 then says it is gone).
 */
async function confirmArchived(ctx: ExecutionContext, batch: readonly ArchiveAction[]): Promise<void> {
  let live: Map<number, RemoteOffer>;
  try {
    live = await confirmThroughList(
      ctx,
      'account',
      batch.map((a) => a.remoteId),
    );
  } catch {
    // The list failed too: each by its own GET, as a last resort.
    await Promise.all(batch.map((a) => confirmRemoved(ctx, a)));
    return;
  }
  await forEachLimit(batch, EXECUTOR_WINDOW, async (a) => {
    if (live.get(a.remoteId)?.status === 'archived') await archived(ctx, a);
    else await archiveOne(ctx, a);
  });
}
