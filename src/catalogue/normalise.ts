// One raw record to the typed offer of its kind, by that kind's normaliser (normalise-account.ts,
// normalise-item.ts, normalise-topup.ts), with every problem addressed (file, line and column or pointer,
// external_id, field, what to do). Images are only collected here; catalogue.ts reads them.
import type { OfferKind } from './desired-offer.ts';
import type { Locator, RawRecord } from './formats/parsed-file.ts';
import { normaliseAccount } from './normalise-account.ts';
import { normaliseItem } from './normalise-item.ts';
import { normaliseTopUp } from './normalise-topup.ts';
import type { Normalised, NormalisedOfferOf } from './normalised-offer.ts';
import type { SharedStrings } from './values.ts';

export type Normaliser<K extends OfferKind> = (
  record: RawRecord,
  file: string,
  locate?: Locator,
  strings?: SharedStrings,
) => Normalised<NormalisedOfferOf<K>>;

export const NORMALISERS: { readonly [K in OfferKind]: Normaliser<K> } = {
  account: normaliseAccount,
  item: normaliseItem,
  topup: normaliseTopUp,
};

export function normaliseRecord<K extends OfferKind>(
  kind: K,
  record: RawRecord,
  file: string,
  locate?: Locator,
  /** Shares equal strings between the offers of a load (values.ts, SharedStrings). */
  strings?: SharedStrings,
): Normalised<NormalisedOfferOf<K>> {
  return NORMALISERS[kind](record, file, locate, strings);
}
