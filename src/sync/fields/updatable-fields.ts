// Which fields a PATCH may change, per kind. The document gives items five (spec 2.5), and a real marketplace
// takes game too; every field of the other kinds may change.
import type { CapabilityVerdict } from '../../capabilities/verdicts.ts';
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import type { FieldName } from './offer-fields.ts';
import type { FieldChange } from './field-change.ts';

export const ITEM_UPDATE_FIELDS: ReadonlySet<FieldName> = new Set<FieldName>([
  'title',
  'price',
  'stock',
  'status',
  'description',
]);

/**
 * `itemGame`: whether the item PATCH takes game, which a real marketplace does beyond the document's five
 * (execute/item-game-update.ts); sent unless known refused.
 */
export function isUpdatable(kind: OfferKind, field: FieldName, itemGame: CapabilityVerdict = 'unusable'): boolean {
  return kind !== 'item' || ITEM_UPDATE_FIELDS.has(field) || (field === 'game' && itemGame !== 'unusable');
}

/** Splits changes into what a PATCH may send and what the API cannot change for this kind (item fields). */
export function splitUpdatable(
  kind: OfferKind,
  changes: readonly FieldChange[],
  itemGame: CapabilityVerdict = 'unusable',
): { sendable: FieldChange[]; fixed: FieldChange[] } {
  const sendable: FieldChange[] = [];
  const fixed: FieldChange[] = [];
  for (const c of changes) (isUpdatable(kind, c.field, itemGame) ? sendable : fixed).push(c);
  return { sendable, fixed };
}
