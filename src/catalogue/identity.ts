// The identity of an offer: its kind and external_id (docs/architecture.md, Identity). The catalogue keys its
// offers by it, the state db and the sync layer too.
import type { OfferKind } from './desired-offer.ts';

export type OfferKey = `${OfferKind}:${string}`;

export function offerKey(kind: OfferKind, externalId: string): OfferKey {
  return `${kind}:${externalId}`;
}

/** The longest external_id the marketplace stores (a VARCHAR(191) column): longer is refused on create. */
export const MAX_EXTERNAL_ID_LENGTH = 191;

/** Letters the server's collation sorts as others (or as two) though Unicode gives them no decomposition. */
const FOLDED: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  ħ: 'h',
};
const FOLDABLE = new RegExp(`[${Object.keys(FOLDED).join('')}]`, 'gu');
/** Marks and characters the collation ignores: combining accents, soft hyphens, zero-width characters. */
const IGNORED = /[\p{Mn}\u00ad\u200b-\u200d\u2060\ufeff]/gu;

/**
 * An external_id as the marketplace compares it (utf8mb4_unicode_ci): without letter case, accents or trailing
 * spaces, so 'Café-1 ', 'cafe-1' and 'CAFE-1' are one, and 'straße' is 'strasse'.
 */
export function collationKey(externalId: string): string {
  return externalId
    .normalize('NFKD')
    .replace(IGNORED, '')
    .toLowerCase()
    .replace(FOLDABLE, (c) => FOLDED[c]!)
    .replace(/ +$/, '');
}

/**
 * External_ids in one conflict group are one offer to the marketplace, which compares them by collationKey: two
 * catalogue entries in a group are a conflict. (Surrounding spaces are trimmed when the record is read.)
 */
export function conflictGroup(kind: OfferKind, externalId: string): string {
  return offerKey(kind, collationKey(externalId));
}

/** Why the marketplace would refuse this external_id, or undefined. Ids of digits only are fine. */
export function externalIdProblem(externalId: string): string | undefined {
  const length = [...externalId].length;
  if (length > MAX_EXTERNAL_ID_LENGTH)
    return (
      `external_id is ${length} characters long: the marketplace keeps at most ${MAX_EXTERNAL_ID_LENGTH} and ` +
      'refuses a longer one; shorten it'
    );
  return undefined;
}
