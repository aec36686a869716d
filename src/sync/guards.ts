// The mass-archive guard (docs/architecture.md, Guard): like rclone's --max-delete, checked before the first write.
import type { GuardVerdict, PlanAction, UpdateAction } from './plan.ts';

export interface GuardOptions {
  /** A fixed limit; null: max(min, percent% of managed offers). */
  readonly maxArchive: number | null;
  readonly maxArchivePercent: number;
  readonly maxArchiveMin: number;
}

export function archiveLimit(managed: number, opts: GuardOptions): number {
  if (opts.maxArchive !== null) return opts.maxArchive;
  return Math.max(opts.maxArchiveMin, Math.ceil((managed * opts.maxArchivePercent) / 100));
}

export function massArchiveVerdict(
  archives: number,
  managed: number,
  opts: GuardOptions,
  allow: boolean,
): GuardVerdict {
  const limit = archiveLimit(managed, opts);
  if (archives <= limit || allow) return { tripped: false, archives, limit };
  return {
    tripped: true,
    archives,
    limit,
    message:
      `this run would archive ${archives} offers, more than the limit of ${limit} ` +
      `(guard.maxArchive, or ${opts.maxArchivePercent}% of ${managed} managed offers, at least ` +
      `${opts.maxArchiveMin}). ` +
      'Nothing was sent. If the catalogue really lost these offers, run again with --allow-mass-archive.',
  };
}

/**
 * Whether an action takes an offer off the market as an archive does: an update whose new status is archived
 * (a catalogue entry, or a file that sets every offer's status) counts against the limit like an archive.
 */
export function archivesByUpdate(a: PlanAction): a is UpdateAction {
  return a.type === 'update' && a.changes.some((c) => c.field === 'status' && c.to === 'archived');
}
