// A top-up record (API document 2.6) to its typed offer, or the problems that keep it out.
import type { Locator, RawRecord } from './formats/parsed-file.ts';
import { sortKeys } from './hash.ts';
import type { Normalised, NormalisedTopUp } from './normalised-offer.ts';
import { RecordWalker } from './record-walker.ts';
import type { SharedStrings } from './values.ts';
import { TOPUP_FIELDS, WAITING_TIME_UNITS } from './topup-schema.ts';

export function normaliseTopUp(
  record: RawRecord,
  file: string,
  locate?: Locator,
  strings?: SharedStrings,
): Normalised<NormalisedTopUp> {
  const w = new RecordWalker('topup', TOPUP_FIELDS, record, file, locate, undefined, strings);
  const externalId = w.walk();
  if (externalId === undefined) return w.invalid();
  const v = w.values();
  return w.valid({
    kind: 'topup',
    externalId,
    fields: sortKeys({
      active: v.bool('active'),
      currency: v.text('currency'),
      game: v.text('game'),
      game_name: v.text('game_name'),
      image: v.text('image'),
      instructions: v.text('instructions'),
      min_quantity: v.number('min_quantity'),
      offer_amount: v.number('offer_amount'),
      offer_key: v.text('offer_key'),
      offer_title: v.text('offer_title'),
      offer_unit: v.text('offer_unit'),
      platform: v.text('platform'),
      price: v.number('price'),
      region: v.text('region'),
      service_label: v.text('service_label'),
      status: v.text('status'),
      stock: v.number('stock'),
      waiting_time_unit: v.oneOf('waiting_time_unit', WAITING_TIME_UNITS),
      waiting_time_value: v.number('waiting_time_value'),
    }),
  });
}
