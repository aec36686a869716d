// The mass-archive guard (docs/architecture.md, Guard): like rclone's --max-delete, checked before the first write.
// The stricter rule wins: never more than half of the managed offers (whatever the shop's size: a small shop's
// export cut short must not empty it), never more than the configured share of a large shop, and never more than
// half of one kind's or one file's managed offers (one sheet cut short must not pass under a large shop's limit).
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import type { GuardVerdict, PlanAction, UpdateAction } from './plan-actions.ts';

export interface GuardOptions {
  /** A fixed limit; null: max(min, percent% of managed offers). */
  readonly maxArchive: number | null;
  readonly maxArchivePercent: number;
  readonly maxArchiveMin: number;
}

/** What the catalogue lost, for the message: it came out empty, or whole files lost every offer. */
export interface CatalogueLoss {
  readonly empty: boolean;
  /** Files (catalogue-relative) all of whose managed offers this run would archive, with their count. */
  readonly files: readonly { readonly file: string; readonly offers: number }[];
}

const NO_LOSS: CatalogueLoss = { empty: false, files: [] };

/** One kind, or one catalogue file still present, with its managed offers and how many of them the run archives. */
export type GuardPart =
  | { readonly scope: 'kind'; readonly kind: OfferKind; readonly managed: number; readonly archives: number }
  | { readonly scope: 'file'; readonly file: string; readonly managed: number; readonly archives: number };

/** The configured share: guard.maxArchive, else max(min, percent% of managed offers). */
export function shareLimit(managed: number, opts: GuardOptions): number {
  if (opts.maxArchive !== null) return opts.maxArchive;
  return Math.max(opts.maxArchiveMin, Math.ceil((managed * opts.maxArchivePercent) / 100));
}

/** Half of the managed offers, rounded down: 2 of 3 is more than half. */
export function halfLimit(managed: number): number {
  return Math.floor(managed / 2);
}

export function archiveLimit(managed: number, opts: GuardOptions): number {
  return Math.min(halfLimit(managed), shareLimit(managed, opts));
}

export function massArchiveVerdict(
  archives: number,
  managed: number,
  opts: GuardOptions,
  allow: boolean,
  loss: CatalogueLoss = NO_LOSS,
  parts: readonly GuardPart[] = [],
): GuardVerdict {
  const limit = archiveLimit(managed, opts);
  if (allow) return { tripped: false, archives, limit };
  if (archives <= limit) {
    const part = parts.find((p) => p.archives > halfLimit(p.managed));
    if (!part) return { tripped: false, archives, limit };
    const what = part.scope === 'kind' ? `the ${part.kind} offers` : `the offers of ${part.file}`;
    return {
      tripped: true,
      archives,
      limit,
      rule: part.scope,
      message:
        `this run would archive ${part.archives} of ${part.managed} of ${what}, more than half of them. ` +
        `${lossNote(loss)}Nothing was sent. If the catalogue really lost these offers, run again with ` +
        '--allow-mass-archive.',
    };
  }
  const rule = archives > halfLimit(managed) ? 'half' : 'share';
  const why =
    rule === 'half'
      ? `this run would archive ${archives} of ${managed} managed offers, more than half of them`
      : `this run would archive ${archives} offers, more than the limit of ${limit} ` +
        (opts.maxArchive !== null
          ? '(guard.maxArchive)'
          : `(${opts.maxArchivePercent}% of ${managed} managed offers, at least ${opts.maxArchiveMin})`);
  return {
    tripped: true,
    archives,
    limit,
    rule,
    message:
      `${why}. ${lossNote(loss)}Nothing was sent. If the catalogue really lost these offers, run again with ` +
      '--allow-mass-archive.',
  };
}

/**
 * Whether an action takes an offer off the market as an archive does: an update whose new status is archived
 * (a catalogue entry, or a file that sets every offer's status) counts against the limit like an archive.
 */
export function archivesByUpdate(a: PlanAction): a is UpdateAction {
  return a.type === 'update' && a.changes.some((c) => c.field === 'status' && c.to === 'archived');
}

function lossNote(loss: CatalogueLoss): string {
  if (loss.empty) return 'The catalogue came out empty: no offer in any file (a moved folder? an empty export?). ';
  if (loss.files.length === 0) return '';
  const shown = loss.files.slice(0, 5).map((f) => `${f.file} (${f.offers})`);
  const more = loss.files.length > shown.length ? ` and ${loss.files.length - shown.length} more` : '';
  return `The catalogue lost whole files: every offer of ${shown.join(', ')}${more} is gone. `;
}
