// How records leave the sandbox: the response fields of the document per kind, then the representation
// switches (wrapping, epoch timestamps, integers as strings, game as an object). Fields the document
// does not list for a response (credentials, item description, champions ...) are never echoed.
import { epochSeconds, isoMicros } from './sandbox-clock.ts';
import { REAL_TOP_UP_NAMES } from './real-top-up-names.ts';
import { realAccountFields } from './real-account.ts';
import type { OfferRecord } from './sandbox-records.ts';
import type { OfferKind, SandboxRepresentation } from './sandbox-options.ts';

/** Response fields of 2.3, 2.5 and 2.6, in the document's order. */
export const RESPONSE_FIELDS: Readonly<Record<OfferKind, readonly string[]>> = {
  accounts: [
    'id',
    'external_id',
    'platform_account_id',
    'title',
    'price',
    'status',
    'created_at',
    'updated_at',
    'sold_at',
    'description',
    'current_rank',
    'current_division',
    'current_lp',
    'flex_rank',
    'flex_division',
    'flex_lp',
    'level',
    'blue_essence',
    'game_points',
    'winrate_percent',
    'champion_count',
    'skin_count',
    'image_ids',
    'image_urls',
    'game_data',
  ],
  items: [
    'id',
    'external_id',
    'platform_item_id',
    'title',
    'type',
    'game',
    'server',
    'price',
    'stock',
    'sold_count',
    'status',
    'created_at',
    'updated_at',
  ],
  'top-ups': [
    'id',
    'external_id',
    'game',
    'game_name',
    'service_label',
    'offer_key',
    'offer_title',
    'offer_amount',
    'offer_unit',
    'region',
    'platform',
    'price',
    'currency',
    'stock',
    'sold_count',
    'min_quantity',
    'waiting_time_value',
    'waiting_time_unit',
    'instructions',
    'image',
    'active',
    'status',
    'created_at',
    'updated_at',
  ],
};

/** A top-up's fields as the real server echoes them (representation.realTopUpNames): its names, no `active`. */
const REAL_TOP_UP_FIELDS: readonly string[] = RESPONSE_FIELDS['top-ups']
  .filter((f) => f !== 'active')
  .map((f) => Object.entries(REAL_TOP_UP_NAMES).find(([, documented]) => documented === f)?.[0] ?? f);

const TIMESTAMPS: Record<string, (r: OfferRecord) => number | null> = {
  created_at: (r) => r.created_us,
  updated_at: (r) => r.updated_us,
  sold_at: (r) => r.sold_us,
};

/** The raw value of a response field, before any switch: used for output and for sorting. */
export function fieldValue(rec: OfferRecord, field: string): unknown {
  if (field === 'id') return rec.id;
  if (field === 'external_id') return rec.external_id;
  if (field === 'status') return rec.status;
  const ts = TIMESTAMPS[field];
  if (ts) return ts(rec);
  if (field === 'game_data') return rec.fields.parameters ?? null;
  // Not in the document; the real marketplace counts units sold of items and top-ups under this name.
  if (field === 'sold_count') return rec.fields.sold_count ?? 0;
  // A real top-up name reads the field stored under the document's name.
  if (Object.hasOwn(REAL_TOP_UP_NAMES, field) && !Object.hasOwn(rec.fields, field))
    return rec.fields[REAL_TOP_UP_NAMES[field as keyof typeof REAL_TOP_UP_NAMES]] ?? null;
  return rec.fields[field] ?? null;
}

export function formatTimestamp(us: number, rep: SandboxRepresentation): string | number {
  return rep.epochTimestamps ? epochSeconds(us) : isoMicros(us);
}

function titleCase(slug: string): string {
  return slug
    .split(/[-_\s]+/)
    .filter((w) => w !== '')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}

/** Every integer in the value as a numeric string (booleans and other numbers untouched). */
export function integersAsStrings(value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (Array.isArray(value)) return value.map(integersAsStrings);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, integersAsStrings(v)]));
  }
  return value;
}

/** The public url of a gallery image by id; undefined when there is no such image. */
export type ImageUrlOf = (id: number) => string | undefined;

export function presentOffer(
  kind: OfferKind,
  rec: OfferRecord,
  rep: SandboxRepresentation,
  imageUrl: ImageUrlOf = () => undefined,
): Record<string, unknown> {
  if (kind === 'accounts' && rep.realAccounts) {
    const real = realAccountFields(rec, imageUrl);
    for (const field of ['created_at', 'updated_at', 'listed_at', 'sold_at'])
      if (typeof real[field] === 'number') real[field] = formatTimestamp(real[field], rep);
    return rep.integersAsStrings ? (integersAsStrings(real) as Record<string, unknown>) : real;
  }
  const out: Record<string, unknown> = {};
  const realTopUp = kind === 'top-ups' && rep.realTopUpNames === true;
  for (const field of realTopUp ? REAL_TOP_UP_FIELDS : RESPONSE_FIELDS[kind]) {
    let v = fieldValue(rec, field);
    if (realTopUp && field === 'game_name' && (v === null || v === '') && typeof rec.fields.game === 'string')
      v = titleCase(rec.fields.game);
    if (field in TIMESTAMPS && typeof v === 'number') v = formatTimestamp(v, rep);
    else if (v !== null && typeof v === 'object') v = structuredClone(v);
    if (field === 'game' && rep.gameAsObject && typeof v === 'string') {
      const name =
        typeof rec.fields.game_name === 'string' && rec.fields.game_name !== '' ? rec.fields.game_name : titleCase(v);
      v = { slug: v, name };
    }
    out[field] = v;
  }
  return rep.integersAsStrings ? (integersAsStrings(out) as Record<string, unknown>) : out;
}

/** A single object as get/create/update answer it. */
export function single(obj: Record<string, unknown>, rep: SandboxRepresentation): Record<string, unknown> {
  return rep.wrapSingle ? { data: obj } : obj;
}

/** An action answer (bulk counts, deleted_id): only the integer switch applies. */
export function action(obj: Record<string, unknown>, rep: SandboxRepresentation): Record<string, unknown> {
  return rep.integersAsStrings ? (integersAsStrings(obj) as Record<string, unknown>) : obj;
}
