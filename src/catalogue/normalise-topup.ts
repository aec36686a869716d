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
  return w.valid({
    kind: 'topup',
    externalId,
    fields: sortKeys({
      active: w.bool('active'),
      currency: w.text('currency'),
      game: w.text('game'),
      game_name: w.text('game_name'),
      image: w.text('image'),
      instructions: w.text('instructions'),
      min_quantity: w.number('min_quantity'),
      offer_amount: w.number('offer_amount'),
      offer_key: w.text('offer_key'),
      offer_title: w.text('offer_title'),
      offer_unit: w.text('offer_unit'),
      platform: w.text('platform'),
      price: w.number('price'),
      region: w.text('region'),
      service_label: w.text('service_label'),
      status: w.text('status'),
      stock: w.number('stock'),
      waiting_time_unit: w.oneOf('waiting_time_unit', WAITING_TIME_UNITS),
      waiting_time_value: w.number('waiting_time_value'),
    }),
  });
}
