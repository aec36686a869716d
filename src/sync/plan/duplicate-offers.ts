// Offers the marketplace lists more than once under one external_id (a server with no unique key on it, as the
// real one for accounts). Which copy is kept and which offersync may take away, decided without I/O: the copy the
// state maps is kept; of the others, offersync archives as many as its journal shows creates beyond the one it
// keeps (the newest first: the copies a stale or repeated create made); whatever it cannot attribute it leaves.
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../marketplace/marketplace-client.ts';

export interface DuplicateCopy {
  readonly id: number;
  readonly status: string | null;
}

export interface DuplicateOffer {
  readonly kind: OfferKind;
  readonly externalId: string;
  /** The copy offersync maps and keeps; null when it maps none of them (then it touches none). */
  readonly kept: number | null;
  /** Copies offersync made: archived. */
  readonly made: readonly DuplicateCopy[];
  /** Copies it cannot say it made, or may not archive (sold): reported and left. */
  readonly left: readonly DuplicateCopy[];
}

export interface DuplicateInput {
  readonly kind: OfferKind;
  readonly externalId: string;
  /** Every copy listed, the mapped one included. */
  readonly copies: readonly RemoteOffer[];
  /** The marketplace id the state maps the external_id to. */
  readonly mappedId: number | undefined;
  /** Creates of this external_id in the journal that may have made an offer (done, or sent with no answer). */
  readonly creates: number;
}

/** Statuses the marketplace owns (docs/architecture.md, Lifecycle): such a copy is never archived. */
const MARKETPLACE_OWNED = new Set(['sold', 'refunded', 'processing']);

export function sortDuplicate(d: DuplicateInput): DuplicateOffer {
  // Archived copies are listed but no longer offered: nothing to do about them.
  const live = d.copies.filter((c) => c.status !== 'archived').map((c) => ({ id: c.id, status: c.status ?? null }));
  const kept = d.copies.some((c) => c.id === d.mappedId) ? (d.mappedId ?? null) : null;
  const base = { kind: d.kind, externalId: d.externalId, kept };
  if (kept === null) return { ...base, made: [], left: live };
  const others = live.filter((c) => c.id !== kept).sort((a, b) => b.id - a.id);
  const archivable = others.filter((c) => !MARKETPLACE_OWNED.has(c.status ?? ''));
  // One create may be the kept copy's own; any beyond it made a copy.
  const made = archivable.slice(0, Math.max(0, d.creates - 1));
  const madeIds = new Set(made.map((c) => c.id));
  return { ...base, made, left: others.filter((c) => !madeIds.has(c.id)) };
}

/** What the run's report says of one duplicated external_id. */
export function describeDuplicate(d: DuplicateOffer, archived: readonly number[], failed: readonly number[]): string {
  const ids = (cs: readonly { id: number }[] | readonly number[]) =>
    cs.map((c) => (typeof c === 'number' ? c : c.id)).join(', ');
  const head = `the marketplace lists ${d.kind} '${d.externalId}' more than once`;
  const parts: string[] = [];
  if (d.kept === null) {
    parts.push(
      `offersync maps none of the copies (ids ${ids(d.left)}), so it touches none: ` +
        'archive the extra ones on the website',
    );
    return `${head}: ${parts.join('; ')}`;
  }
  parts.push(`offersync keeps id ${d.kept}`);
  if (archived.length > 0) parts.push(`archived the copies it made (ids ${ids(archived)})`);
  if (failed.length > 0) parts.push(`could not archive the copies it made (ids ${ids(failed)}): tried again next run`);
  if (d.left.length > 0)
    parts.push(`left ids ${ids(d.left)} (not made by offersync, or sold): archive them on the website if unwanted`);
  return `${head}: ${parts.join('; ')}`;
}
