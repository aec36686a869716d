// An item record (API document 2.5) to its typed offer, or the problems that keep it out.
import type { Locator, RawRecord } from './formats/parsed-file.ts';
import { sortKeys } from './hash.ts';
import { ITEM_FIELDS } from './item-schema.ts';
import type { Normalised, NormalisedItem } from './normalised-offer.ts';
import { RecordWalker } from './record-walker.ts';
import type { SharedStrings } from './values.ts';

export function normaliseItem(
  record: RawRecord,
  file: string,
  locate?: Locator,
  strings?: SharedStrings,
): Normalised<NormalisedItem> {
  const w = new RecordWalker('item', ITEM_FIELDS, record, file, locate, undefined, strings);
  const externalId = w.walk();
  if (externalId === undefined) return w.invalid();
  const v = w.values();
  return w.valid({
    kind: 'item',
    externalId,
    fields: sortKeys({
      description: v.text('description'),
      game: v.text('game'),
      price: v.requiredNumber('price'),
      server: v.text('server'),
      status: v.text('status'),
      stock: v.number('stock'),
      title: v.requiredText('title'),
      type: v.text('type'),
    }),
  });
}
