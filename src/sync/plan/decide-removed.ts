// Planning, stage 2 for an offer the catalogue no longer wants: archive what offersync owns, leave the rest,
// saying why (docs/architecture.md, Ownership and Guard).
import { isLocked } from './locked-status.ts';
import type { MatchedOffer } from './match.ts';
import type { ArchiveAction, NoopAction, NoopReason } from './plan-actions.ts';
import type { PlannerOptions } from './planner-options.ts';

export interface RemovedContext {
  readonly options: PlannerOptions;
  readonly catalogueComplete: boolean;
  readonly remoteComplete: boolean;
  readonly quarantinedFiles: ReadonlySet<string>;
  /** The catalogue holds an entry for this offer, but with errors. */
  readonly invalid: boolean;
}

/** Whether offersync may archive an offer it does not find in the catalogue (the prune policy). */
export function isOwned(m: MatchedOffer, options: PlannerOptions): boolean {
  if (options.prune === 'none') return false;
  if (options.prune === 'all') return true;
  return (m.state?.managed ?? false) || (options.ownedPattern?.test(m.externalId) ?? false);
}

/** An archive (its route is chosen with the others, in plan/batches.ts), a noop with its reason, or nothing. */
export type RemovedDecision = Omit<ArchiveAction, 'route'> | NoopAction | null;

export function decideRemoved(m: MatchedOffer, ctx: RemovedContext): RemovedDecision {
  const { kind, externalId } = m;
  const rec = m.state;
  const status = m.live?.status ?? rec?.remoteStatus ?? undefined;
  const remoteId = m.live?.id ?? rec?.remoteId ?? undefined;
  const noop = (reason: NoopReason, detail?: string): NoopAction => ({
    type: 'noop',
    kind,
    externalId,
    reason,
    ...(detail ? { detail } : {}),
    ...(remoteId !== undefined ? { remoteId } : {}),
  });
  if (m.presence === 'gone') return noop('gone', 'no longer on the marketplace: forgotten');
  if (m.presence === 'unconfirmed')
    return noop('unconfirmed', 'missing from the list and the check by id failed: retried next run');
  if (status === 'archived') return null;
  if (isLocked(status)) return noop(status, `the marketplace marks it ${status}`);
  if (!isOwned(m, ctx.options)) return noop('unmanaged');
  if (ctx.invalid) return noop('invalid', 'its catalogue entry has errors: fix them; it is not archived meanwhile');
  if (rec?.sourceFile && ctx.quarantinedFiles.has(rec.sourceFile))
    return noop('quarantined', `${rec.sourceFile} does not parse: its offers are left as they are`);
  if (remoteId === undefined) return null;
  if (!ctx.catalogueComplete || !ctx.remoteComplete)
    return noop('blocked', 'not archived: the catalogue or the remote list was incomplete this run');
  return { type: 'archive', kind, externalId, remoteId, reason: 'removed from the catalogue' };
}
