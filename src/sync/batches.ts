// Planning, stage 3: bulk routes. Top-up updates, top-up archives and account archives travel in batches of
// one bulk call each, unless the state db knows the bulk route is refused or there is only one offer to send.
// The first batch the executor sends probes a route never tried; the others follow its verdict.
import type { ArchiveAction, ArchiveRoute, PlanAction } from './plan.ts';
import type { PlannerOptions } from './planner-options.ts';

/** Batch number of each of `count` elements in order, or null when they go one by one. */
function batchNumbers(count: number, size: number, refused: boolean): ((i: number) => number) | null {
  if (refused || count <= 1) return null;
  return (i) => Math.floor(i / size);
}

/** Top-up updates through bulk-update; the other actions as they are. */
export function batchTopUpUpdates(actions: readonly PlanAction[], options: PlannerOptions): PlanAction[] {
  const count = actions.filter((a) => a.type === 'update' && a.kind === 'topup').length;
  const refused = options.capabilities.topUpBulkUpdate === 'unusable';
  const batchOf = batchNumbers(count, options.bulk.topUpUpdateSize, refused);
  if (!batchOf) return [...actions];
  let i = 0;
  return actions.map((a) =>
    a.type === 'update' && a.kind === 'topup'
      ? { ...a, route: { via: 'bulk-update', batch: batchOf(i++), ifRefused: 'patch' } }
      : a,
  );
}

/** Archives with their routes: accounts through bulk-remove, top-ups through bulk-update, items one by one. */
export function routeArchives(
  archives: readonly Omit<ArchiveAction, 'route'>[],
  options: PlannerOptions,
): ArchiveAction[] {
  const caps = options.capabilities;
  const count = (kind: ArchiveAction['kind']) => archives.filter((a) => a.kind === kind).length;
  const accounts = batchNumbers(count('account'), options.bulk.removeSize, caps.accountBulkRemove === 'unusable');
  const topUps = batchNumbers(count('topup'), options.bulk.topUpUpdateSize, caps.topUpBulkUpdate === 'unusable');
  const seen = { account: 0, item: 0, topup: 0 };
  return archives.map((a) => {
    const i = seen[a.kind]++;
    let route: ArchiveRoute = { via: 'single' };
    if (a.kind === 'account' && accounts) route = { via: 'bulk-remove', batch: accounts(i), ifRefused: 'single' };
    if (a.kind === 'topup' && topUps) route = { via: 'bulk-update', batch: topUps(i), ifRefused: 'single' };
    return { ...a, route };
  });
}
