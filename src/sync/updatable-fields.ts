// Which fields a PATCH may change, per kind. The document gives items five (spec 2.5); every field of the
// other kinds may change.
import type { OfferKind } from '../catalogue/desired-offer.ts';
import type { FieldName } from './offer-fields.ts';
import type { FieldChange } from './plan.ts';

export const ITEM_UPDATE_FIELDS: ReadonlySet<FieldName> = new Set<FieldName>([
  'title',
  'price',
  'stock',
  'status',
  'description',
]);

export function isUpdatable(kind: OfferKind, field: FieldName): boolean {
  return kind !== 'item' || ITEM_UPDATE_FIELDS.has(field);
}

/** Splits changes into what a PATCH may send and what the API cannot change for this kind (item fields). */
export function splitUpdatable(
  kind: OfferKind,
  changes: readonly FieldChange[],
): { sendable: FieldChange[]; fixed: FieldChange[] } {
  const sendable: FieldChange[] = [];
  const fixed: FieldChange[] = [];
  for (const c of changes) (isUpdatable(kind, c.field) ? sendable : fixed).push(c);
  return { sendable, fixed };
}
