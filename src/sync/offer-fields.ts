// The fields of an offer of any kind, by their API names, typed as the catalogue produces them. Diffs and
// request bodies handle fields by name across kinds; this keeps each name's type on the way.
import type { AccountFields, ItemFields, TopUpFields } from '../catalogue/desired-offer.ts';

export type OfferFields = Readonly<Partial<AccountFields & ItemFields & TopUpFields>>;
export type FieldName = keyof OfferFields;
export type FieldValue = NonNullable<OfferFields[FieldName]>;

/** The field names an offer states, in sorted order (Object.keys types them as plain strings). */
export function fieldNames(fields: OfferFields): FieldName[] {
  return (Object.keys(fields) as FieldName[]).sort();
}
