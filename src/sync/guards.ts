// The mass-archive guard (docs/architecture.md, Guard): like rclone's --max-delete, checked before the first write.
import type { GuardVerdict } from './plan.ts';

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
