// The top-up field names of the marketplace's real server beside the document's (representation.realTopUpNames):
// stored under the document's names, read under either, echoed under the real ones.

/** Each real name and the document's name it is stored under. */
export const REAL_TOP_UP_NAMES = {
  title: 'offer_title',
  amount: 'offer_amount',
  unit: 'offer_unit',
  image_url: 'image',
} as const satisfies Readonly<Record<string, string>>;
export type RealTopUpName = keyof typeof REAL_TOP_UP_NAMES;

/** The only keys the real top-up bulk-update reads of an element; it ignores any other with a 200. */
export const REAL_TOP_UP_BULK_KEYS: ReadonlySet<string> = new Set([
  'price',
  'stock',
  'region',
  'platform',
  'service_label',
  'instructions',
  'title',
  'amount',
  'status',
]);

/** The body with each real name turned into the document's (the real one wins where both are given). */
export function fromRealNames(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (Object.hasOwn(REAL_TOP_UP_NAMES, k)) continue;
    out[k] = v;
  }
  for (const [real, documented] of Object.entries(REAL_TOP_UP_NAMES))
    if (body[real] !== undefined) out[documented] = body[real];
  return out;
}

/** Of a bulk element, the keys the real route reads. */
export function realBulkElement(el: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(el).filter(([k]) => REAL_TOP_UP_BULK_KEYS.has(k)));
}
