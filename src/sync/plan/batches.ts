// Planning, stage 3: bulk routes. Item and top-up updates and archives, and account archives, travel in
// batches of one bulk call each, unless the state db knows the kind's bulk routes are refused or there is only
// one offer to send. The first batch the executor sends probes a route never tried; the others follow its
// verdict (plan/bulk-candidates.ts names the routes).
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import { ARCHIVE_CANDIDATES, BULK_CANDIDATES, carries, UPDATE_CANDIDATE } from './bulk-candidates.ts';
import type { ArchiveAction, ArchiveRoute, PlanAction, UpdateAction } from './plan-actions.ts';
import type { PlannerOptions } from './planner-options.ts';

/** Batch number of each of `count` elements in order, or null when they go one by one. */
function batchNumbers(count: number, size: number, refused: boolean): ((i: number) => number) | null {
  if (refused || count <= 1) return null;
  return (i) => Math.floor(i / size);
}

/** Offers per bulk-update call of a kind. */
function updateSize(kind: OfferKind, options: PlannerOptions): number {
  return kind === 'item' ? options.bulk.itemUpdateSize : options.bulk.topUpUpdateSize;
}

/** An item's game travels by the single PATCH only: a bulk-update ignores it (execute/item-game-update.ts). */
const changesGame = (a: UpdateAction): boolean => a.kind === 'item' && a.changes.some((c) => c.field === 'game');
/**
 * Whether the kind's bulk-update carries every field the update changes: one it does not read goes by the
 * offer's own PATCH, with the rest of its changes, so the offer costs one request either way.
 */
function bulkCarries(a: UpdateAction): boolean {
  const id = UPDATE_CANDIDATE[a.kind];
  return id !== undefined && a.changes.every((c) => carries(BULK_CANDIDATES[id], c.field));
}

/** Item and top-up updates through their bulk-update; the other actions as they are. */
export function batchUpdates(actions: readonly PlanAction[], options: PlannerOptions): PlanAction[] {
  const batchOf = new Map<OfferKind, (i: number) => number>();
  const seen = new Map<OfferKind, number>();
  for (const [kind, id] of Object.entries(UPDATE_CANDIDATE) as [OfferKind, keyof typeof BULK_CANDIDATES][]) {
    const count = actions.filter(
      (a) => a.type === 'update' && a.kind === kind && !changesGame(a) && bulkCarries(a),
    ).length;
    const refused = options.capabilities[BULK_CANDIDATES[id].id] === 'unusable';
    const of = batchNumbers(count, updateSize(kind, options), refused);
    if (of) batchOf.set(kind, of);
  }
  if (batchOf.size === 0) return [...actions];
  return actions.map((a) => {
    if (a.type !== 'update' || changesGame(a) || !bulkCarries(a)) return a;
    const of = batchOf.get(a.kind);
    if (!of) return a;
    const i = seen.get(a.kind) ?? 0;
    seen.set(a.kind, i + 1);
    return { ...a, route: { via: 'bulk-update', batch: of(i), ifRefused: 'patch' } };
  });
}

/**
 * Archives with their routes: accounts through bulk-remove; items and top-ups through bulk-update with status
 * archived, else bulk-remove where that is not known refused; else one by one.
 */
export function routeArchives(
  archives: readonly Omit<ArchiveAction, 'route'>[],
  options: PlannerOptions,
): ArchiveAction[] {
  const caps = options.capabilities;
  const count = (kind: ArchiveAction['kind']) => archives.filter((a) => a.kind === kind).length;
  const viaOf = (kind: OfferKind): { via: 'bulk-remove' | 'bulk-update'; size: number } | null => {
    if (kind === 'account')
      return caps.accountBulkRemove === 'unusable' ? null : { via: 'bulk-remove', size: options.bulk.removeSize };
    const open = (ARCHIVE_CANDIDATES[kind] ?? []).find((id) => caps[BULK_CANDIDATES[id].id] !== 'unusable');
    if (open === undefined) return null;
    const op = BULK_CANDIDATES[open].op;
    return { via: op, size: op === 'bulk-remove' ? options.bulk.removeSize : updateSize(kind, options) };
  };
  const routes = new Map<OfferKind, { via: 'bulk-remove' | 'bulk-update'; of: (i: number) => number }>();
  for (const kind of ['account', 'item', 'topup'] as const) {
    const v = viaOf(kind);
    const of = v ? batchNumbers(count(kind), v.size, false) : null;
    if (v && of) routes.set(kind, { via: v.via, of });
  }
  const seen = { account: 0, item: 0, topup: 0 };
  return archives.map((a) => {
    const i = seen[a.kind]++;
    const r = routes.get(a.kind);
    const route: ArchiveRoute = r ? { via: r.via, batch: r.of(i), ifRefused: 'single' } : { via: 'single' };
    return { ...a, route };
  });
}
