// Bulk routes: account archives through POST /accounts/bulk-remove; item and top-up updates and archives through
// the candidates of plan/bulk-candidates.ts. No limit or answer is documented: the first batch probes a route
// (capabilities/gate.ts), its 422s teach its key and limit, a refusal sends the batch by the next route or one by
// one, and per-offer outcomes are read where the answer gives them.
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import type { BulkRow, BulkUpdateResult, RemoteOffer } from '../../marketplace/marketplace-client.ts';
import {
  ARCHIVE_CANDIDATES,
  BULK_CANDIDATES,
  type BulkCandidate,
  type BulkCandidateId,
  bulkElement,
  UPDATE_CANDIDATE,
} from '../plan/bulk-candidates.ts';
import { sameValue } from '../fields/canonical-json.ts';
import { WrongOfferError } from './wrong-offer-error.ts';
import { batchLimit, requiredKey } from './bulk-learning.ts';
import { CAPABILITIES, type CapabilityName, learntKeyName, learntLimitName } from '../../capabilities/names.ts';
import { isCapabilityRefusal } from './capability-refusal.ts';
import { failure, isDefinitelyNotFound, statusOf } from '../run-stopped.ts';
import { errorMessage } from '../../log/scrubber.ts';
import { type ExecutionContext, PRIORITY } from './execution-context.ts';
import { moneyPriority } from '../plan/money-rank.ts';
import { EXECUTOR_WINDOW, forEachLimit } from '../for-each-limit.ts';
import { answerOf, EVENT_ROUTES, sentWrite, TAKEN, updatedChanges } from './offer-events.ts';
import type { OfferFields } from '../fields/offer-fields.ts';
import type { MarketplaceAnswer } from '../../state/records.ts';
import type { ArchiveAction, UpdateAction } from '../plan/plan-actions.ts';
import { changesToBody } from '../fields/request-body.ts';
import { confirmThroughList } from './confirm-through-list.ts';
import { resourceOf } from '../fields/resource-of.ts';
import { alreadyGone, archived, archiveOne } from './route-archive.ts';
import { runUpdate, tellUpdate } from './route-update.ts';

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
      const answer = answerOf(err);
      const type = route.op === 'bulk-remove' ? 'archived' : 'updated';
      for (const e of batch) {
        if (answer)
          ctx.event(sentWrite(route.kind, e.externalId, type, EVENT_ROUTES.bulk(route.kind, route.op), [], answer));
        ctx.report({ kind: route.kind, externalId: e.externalId, ...outcome });
      }
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

/**
 * One offer in a bulk call: what a bulk-update sends for it, what follows its success by `route`, the story of its
 * refusal, its own route.
 */
interface BulkElement {
  readonly externalId: string;
  readonly remoteId: number;
  readonly body: OfferFields;
  /** The queue priority of its money rank (plan/money-rank.ts); a batch goes at its most urgent element's. */
  readonly priority?: number;
  onOk(offer: RemoteOffer | undefined, route: string): Promise<void>;
  refusedBy(answer: MarketplaceAnswer, route: string): void;
  single(): Promise<void>;
}

/** Updates planned through a bulk route (items, top-ups), per kind. */
export async function bulkUpdate(ctx: ExecutionContext, updates: readonly UpdateAction[]): Promise<void> {
  await Promise.all(
    Object.entries(UPDATE_CANDIDATE).map(([kind, id]) => {
      const batches = byBatch(updates.filter((a) => a.kind === kind)).map((batch) =>
        batch.map((a): BulkElement => {
          const sent = changesToBody(a.changes);
          const told = updatedChanges(a.changes, false, undefined);
          return {
            externalId: a.externalId,
            remoteId: a.remoteId,
            body: sent,
            priority: moneyPriority(a),
            refusedBy: (answer, route) => tellUpdate(ctx, a, route, told, answer),
            onOk: async (offer, route) => {
              tellUpdate(ctx, a, route, told, TAKEN);
              const status = sent.status;
              const echoed = offer ?? {
                id: a.remoteId,
                externalId: a.externalId,
                ...(typeof status === 'string' ? { status } : {}),
                fields: {},
              };
              await ctx.applied(a.desired, echoed, sent, a.fields);
              const outcome = a.reason === 'adopted' ? 'adopted' : 'updated';
              const file = a.desired.source.file;
              ctx.report({ kind: a.kind, externalId: a.externalId, outcome, file, fields: Object.keys(sent) });
            },
            single: () => runUpdate(ctx, a, { via: 'patch', ifRefused: 'fail' }),
          };
        }),
      );
      return forEachLimit(batches, EXECUTOR_WINDOW, (batch) => viaCandidates(ctx, [id], batch));
    }),
  );
}

/** Archives planned through a bulk route: accounts through bulk-remove, items and top-ups by their candidates. */
export async function bulkArchive(ctx: ExecutionContext, archives: readonly ArchiveAction[]): Promise<void> {
  const accounts = archives.filter((a) => a.kind === 'account' && a.route.via === 'bulk-remove');
  const others = Object.entries(ARCHIVE_CANDIDATES).map(([kind, candidates]) => {
    const batches = byBatch(archives.filter((a) => a.kind === kind && a.route.via !== 'single'));
    return forEachLimit(batches, EXECUTOR_WINDOW, (batch) => {
      // A batch planned for bulk-remove (bulk-update known refused) starts there.
      const via = batch[0]?.route.via;
      const routes = candidates.filter((id) => via !== 'bulk-remove' || BULK_CANDIDATES[id].op === 'bulk-remove');
      const elements = batch.map(
        (a): BulkElement => ({
          externalId: a.externalId,
          remoteId: a.remoteId,
          body: { status: 'archived' },
          onOk: (_, route) => archived(ctx, a, route),
          refusedBy: (answer, route) =>
            ctx.event(sentWrite(a.kind, a.externalId, 'archived', route, [], answer, a.reason)),
          single: () => archiveOne(ctx, a),
        }),
      );
      return viaCandidates(ctx, routes, elements);
    });
  });
  await Promise.all([...others, bulkRemoveAccounts(ctx, byBatch(accounts))]);
}

/**
 * One batch by the first of `candidates`; a refusal of the route sends the batch by the next, and after the
 * last, each offer by its own route. Nothing is dropped: whatever a bulk answer does not show done goes singly.
 */
async function viaCandidates(
  ctx: ExecutionContext,
  candidates: readonly BulkCandidateId[],
  batch: readonly BulkElement[],
): Promise<void> {
  const [first, ...rest] = candidates;
  if (first === undefined || batch.length === 0) {
    await forEachLimit(batch, EXECUTOR_WINDOW, (e) => e.single());
    return;
  }
  const c: BulkCandidate = BULK_CANDIDATES[first];
  let sent: readonly Sent[] | null;
  try {
    sent = await ctx.capabilities.call<readonly Sent[] | null>({
      capability: c.capability,
      attempt: () => sendLearning(ctx, c, batch),
      refusal: async (err) => {
        if (!isCapabilityRefusal(err)) return null;
        const next = rest.length > 0 ? `by ${BULK_CANDIDATES[rest[0]!].route}` : 'one by one';
        ctx.logger.warn({ status: statusOf(err), route: c.route }, `${c.route} refused: sent ${next}`);
        return `${statusOf(err)}: ${errorMessage(err)}`;
      },
      fallback: async () => {
        await viaCandidates(ctx, rest, batch);
        return null;
      },
      proberFallsBack: true,
    });
  } catch (err) {
    const outcome = failure(err, `${c.op} failed: `);
    const answer = answerOf(err);
    for (const e of batch) {
      if (answer) e.refusedBy(answer, EVENT_ROUTES.bulk(c.kind, c.op));
      ctx.report({ kind: c.kind, externalId: e.externalId, ...outcome });
    }
    return;
  }
  if (!sent) return;
  for (const s of sent) await settleChunk(ctx, c, s);
}

/** A part of a batch as sent: the answer, or the error a later part met after the route proved served. */
type Sent =
  | { readonly chunk: readonly BulkElement[]; readonly answer: BulkUpdateResult }
  | { readonly chunk: readonly BulkElement[]; readonly error: unknown };

/**
 * Sends a batch by a candidate, learning from its 422s: a message naming the array key it requires is tried
 * once under that key, and one naming a batch limit splits the batch; both are remembered once they work.
 * Bounded: each key is tried once, and a limit only ever shrinks the parts.
 */
async function sendLearning(
  ctx: ExecutionContext,
  c: BulkCandidate,
  batch: readonly BulkElement[],
): Promise<readonly Sent[]> {
  const knownKey = (await ctx.store.getCapability(learntKeyName(c)))?.detail ?? undefined;
  const knownLimit = Number((await ctx.store.getCapability(learntLimitName(c)))?.detail ?? Number.NaN);
  let key = knownKey ?? c.key;
  let limit = Number.isSafeInteger(knownLimit) && knownLimit >= 1 ? knownLimit : batch.length;
  const tried = new Set([key]);
  const out: Sent[] = [];
  let rest = batch;
  while (rest.length > 0) {
    const chunk = rest.slice(0, limit);
    try {
      const answer = await ctx.journaled(
        c.op,
        c.kind,
        chunk.map((e) => e.externalId),
        () =>
          resourceOf(ctx.client, c.kind).bulk(c.op, key, chunk.map(elementOf(c)), {
            priority:
              c.op === 'bulk-remove' || chunk[0]?.body.status === 'archived'
                ? PRIORITY.archive
                : Math.max(PRIORITY.update, ...chunk.map((e) => e.priority ?? PRIORITY.update)),
          }),
      );
      if (key !== (knownKey ?? c.key)) {
        await ctx.store.setCapability(learntKeyName(c), true, key);
        ctx.logger.info({ route: c.route, key }, `learnt: ${c.route} takes its array under "${key}"`);
      }
      out.push({ chunk, answer });
      rest = rest.slice(chunk.length);
    } catch (err) {
      if (out.length > 0) return [...out, { chunk: rest, error: err }];
      const message = statusOf(err) === 422 ? errorMessage(err) : '';
      const named = requiredKey(message);
      if (named !== undefined && !tried.has(named)) {
        tried.add(named);
        key = named;
        ctx.logger.info({ route: c.route, key }, `${c.route} asks for its array under "${key}": trying it`);
        continue;
      }
      const max = batchLimit(message);
      if (max !== undefined && max < chunk.length) {
        limit = max;
        await ctx.store.setCapability(learntLimitName(c), true, String(max));
        ctx.logger.info({ route: c.route, limit: max }, `learnt: ${c.route} takes at most ${max} offers a call`);
        continue;
      }
      throw err;
    }
  }
  return out;
}

const elementOf =
  (c: BulkCandidate) =>
  (e: BulkElement): unknown =>
    bulkElement(c, e.remoteId, e.body);

/** The rows of an answer, or of its outcomes by external_id where it gives only those. */
function rowsOf(answer: BulkUpdateResult): readonly BulkRow[] | undefined {
  if (answer.rows) return answer.rows;
  return answer.outcomes ? [...answer.outcomes].map(([externalId, o]) => ({ externalId, ...o })) : undefined;
}

/**
 * The first offer a bulk answer names that the call was not sent for: a row whose id is not one of the chunk's,
 * or, without an id, whose external_id is not. undefined when every row is one of the chunk's.
 */
function foreignRow(chunk: readonly BulkElement[], rows: readonly BulkRow[]): BulkRow | undefined {
  const ids = new Set(chunk.map((e) => e.remoteId));
  const externalIds = new Set(chunk.map((e) => e.externalId));
  return rows.find((r) =>
    r.id !== undefined ? !ids.has(r.id) : r.externalId !== undefined && !externalIds.has(r.externalId),
  );
}

/**
 * The fields of `sent` the stored offer does not show as sent: accepted is not applied (a server may ignore a key
 * with a 200). A field the row does not echo is taken as sent.
 */
function unapplied(o: RemoteOffer, sent: OfferFields): string[] {
  return Object.entries(sent)
    .filter(([f, v]) =>
      f === 'status'
        ? o.status !== undefined && o.status !== v
        : o.fields[f] !== undefined && !sameValue(o.fields[f], v),
    )
    .map(([f]) => f);
}

/**
 * Reads one bulk answer: per-offer rows where it gives them, counts that say all were done, else the front
 * of the list. What it does not show done (failed, not itemised, not counted, or a field shown unchanged) goes by
 * the offer's own route. A row naming an offer the call was not sent for halts the run.
 */
async function settleChunk(ctx: ExecutionContext, c: BulkCandidate, s: Sent): Promise<void> {
  if ('error' in s) {
    // The route was served for an earlier part of the batch: the rest goes singly.
    await forEachLimit(s.chunk, EXECUTOR_WINDOW, (e) => e.single());
    return;
  }
  const { chunk, answer } = s;
  const route = EVENT_ROUTES.bulk(c.kind, c.op);
  const expected = (e: BulkElement): OfferFields => (c.op === 'bulk-remove' ? { status: 'archived' } : e.body);
  const rows = rowsOf(answer);
  if (rows) {
    const hit = foreignRow(chunk, rows);
    if (hit) return await wrongOffer(ctx, c, chunk, rows, hit);
    const rowOf = new Map(rows.flatMap((r) => (r.id !== undefined ? [[r.id, r] as const] : [])));
    const byExternalId = new Map(rows.flatMap((r) => (r.externalId !== undefined ? [[r.externalId, r] as const] : [])));
    // An element the answer does not show done, or shows failed, goes by its own route: a bulk failure may be
    // the marketplace's load ("retry it") as well as the offer's, and the single route's answer tells which (a
    // sold offer, a refusal held back by the offer's backoff) and reports the offer once.
    const undone: BulkElement[] = [];
    for (const e of chunk) {
      const o = rowOf.get(e.remoteId) ?? byExternalId.get(e.externalId);
      const notApplied = o?.ok && o.offer ? unapplied(o.offer, expected(e)) : [];
      if (o?.ok && notApplied.length === 0) await e.onOk(o.offer, route);
      else {
        if (o) {
          const message = o.ok ? `accepted, but shown unchanged: ${notApplied.join(', ')}` : (o.message ?? 'refused');
          e.refusedBy({ outcome: 'refused', status: null, message }, route);
          const log = { externalId: e.externalId, route: c.route, message };
          if (o.ok) ctx.logger.warn(log, `${c.op} did not apply it: sent singly`);
          else ctx.logger.info(log, `${c.op} left it undone: sent singly`);
        }
        undone.push(e);
      }
    }
    await forEachLimit(undone, EXECUTOR_WINDOW, (e) => e.single());
    return;
  }
  const done = c.op === 'bulk-remove' ? answer.counts?.removed : answer.counts?.updated;
  if (done === chunk.length) {
    for (const e of chunk) await e.onOk(undefined, route);
    return;
  }
  // The counts do not say which ones: read them back from the list, not one GET each.
  let live: Map<number, RemoteOffer>;
  try {
    live = await confirmThroughList(
      ctx,
      c.kind,
      chunk.map((e) => e.remoteId),
    );
  } catch (err) {
    const outcome = failure(err, `${c.op} left it unconfirmed: `);
    for (const e of chunk) ctx.report({ kind: c.kind, externalId: e.externalId, ...outcome });
    return;
  }
  await forEachLimit(chunk, EXECUTOR_WINDOW, async (e) => {
    const o = live.get(e.remoteId);
    if (o && shows(o, expected(e))) await e.onOk(o, route);
    else await e.single();
  });
}

/**
 * A bulk answer naming an offer the call was not sent for: the run halts before any further write, the chunk's
 * offers are reported failed with what happened (none is recorded as done), and the route is remembered refused,
 * so the next runs send that work by each offer's own route (its path carries the id) until it is probed again.
 */
async function wrongOffer(
  ctx: ExecutionContext,
  c: BulkCandidate,
  chunk: readonly BulkElement[],
  rows: readonly BulkRow[],
  hit: BulkRow,
): Promise<void> {
  const shown = new Set(rows.flatMap((r) => (r.id !== undefined ? [r.id] : [])));
  const meant = chunk.filter((e) => !shown.has(e.remoteId)).map((e) => ({ id: e.remoteId, externalId: e.externalId }));
  const named = {
    ...(hit.id !== undefined ? { id: hit.id } : {}),
    ...(hit.externalId !== undefined ? { externalId: hit.externalId } : {}),
  };
  const err = new WrongOfferError(c.kind, c.route, named, meant);
  ctx.halt(err);
  for (const e of chunk)
    ctx.report({ kind: c.kind, externalId: e.externalId, outcome: 'failed', message: err.message });
  await ctx.store.setCapability(c.capability, false, 'answered for an offer it was not sent for');
}

const ACCOUNT_BULK_REMOVE = EVENT_ROUTES.bulk('account', 'bulk-remove');

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
        for (const a of batch) await archived(ctx, a, ACCOUNT_BULK_REMOVE);
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
  if (live.status === 'archived') await archived(ctx, a, ACCOUNT_BULK_REMOVE);
  else await archiveOne(ctx, a);
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
    if (live.get(a.remoteId)?.status === 'archived') await archived(ctx, a, ACCOUNT_BULK_REMOVE);
    else await archiveOne(ctx, a);
  });
}
