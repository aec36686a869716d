// The fields of an offer of any kind, by their API names, typed as the catalogue produces them. Diffs and
// request bodies handle fields by name across kinds; this keeps each name's type on the way.
import type { AccountFields, ItemFields, TopUpFields } from '../../catalogue/desired-offer.ts';

export type OfferFields = Readonly<Partial<AccountFields & ItemFields & TopUpFields>>;
export type FieldName = keyof OfferFields;
export type FieldValue = NonNullable<OfferFields[FieldName]>;

/** The field names an offer states, in sorted order (Object.keys types them as plain strings). */
export function fieldNames(fields: OfferFields): FieldName[] {
  return (Object.keys(fields) as FieldName[]).sort();
}

/** The offer's title as a seller searches for it: an account's or item's title, a top-up's offer_title. */
export function offerTitle(fields: OfferFields): string | null {
  return fields.title ?? fields.offer_title ?? null;
}
