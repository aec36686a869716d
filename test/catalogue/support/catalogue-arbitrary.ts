// Random valid catalogue offers for the property tests, and one writer per format, so that the same offers
// can be written as JSON, NDJSON, CSV and YAML and read back.
import fc from 'fast-check';
import { stringify as yamlStringify } from 'yaml';
import type { OfferKind } from '../../../src/catalogue/desired-offer.ts';
import type { TextFormat as Format } from '../../../src/catalogue/layout.ts';
import { WAITING_TIME_UNITS } from '../../../src/catalogue/topup-schema.ts';

/** An offer as a person writes it: numbers as numbers, lists as lists, credentials as a nested object. */
export type WrittenOffer = Readonly<Record<string, string | number | boolean | readonly string[] | Credentials>>;
type Credentials = Readonly<Record<string, string>>;

const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 }).filter((s) => s.trim() !== '');
const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,9}$/);
const price = fc.oneof(
  fc.integer({ min: 1, max: 10_000_000 }),
  fc.integer({ min: 1, max: 1_000_000 }).map((c) => Number((c / 100).toFixed(2)) + (c % 100 === 0 ? 0.5 : 0)),
);
const count = fc.integer({ min: 0, max: 1_000_000 });

const item = fc.record(
  { title: text, price, type: text, game: text, stock: count, description: text },
  { requiredKeys: ['title', 'price'] },
);
const topup = fc.record(
  {
    offer_title: text,
    offer_amount: count,
    price,
    region: text,
    waiting_time_value: count,
    waiting_time_unit: fc.constantFrom(...WAITING_TIME_UNITS),
    active: fc.boolean(),
  },
  // The marketplace refuses a top-up without a title: so does the catalogue.
  { requiredKeys: ['offer_title'] },
);
const account = fc.record(
  {
    title: text,
    price,
    level: fc.integer({ min: 0, max: 3000 }),
    champions: fc.array(word, { minLength: 1, maxLength: 4 }),
    credentials: fc.record({ login: text, password: text }),
    description: text,
  },
  { requiredKeys: ['title', 'price'] },
);
const FIELDS = { item, topup, account } as const;

/** One kind and 1 to 8 valid offers of it with distinct external_ids (also in letter case). */
export function validOffers(): fc.Arbitrary<{ kind: OfferKind; offers: WrittenOffer[] }> {
  return fc.constantFrom<OfferKind>('account', 'item', 'topup').chain((kind) =>
    fc
      .uniqueArray(fc.tuple(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,15}$/), FIELDS[kind]), {
        minLength: 1,
        maxLength: 8,
        selector: ([id]) => id.toLowerCase(),
      })
      .map((rows) => ({ kind, offers: rows.map(([external_id, fields]) => ({ external_id, ...fields })) })),
  );
}

export const EXTENSION: Readonly<Record<Format, string>> = { json: 'json', ndjson: 'ndjson', csv: 'csv', yaml: 'yaml' };

export function writeOffers(format: Format, offers: readonly WrittenOffer[]): string {
  switch (format) {
    case 'json':
      return JSON.stringify(offers, null, 2);
    case 'ndjson':
      return `${offers.map((o) => JSON.stringify(o)).join('\n')}\n`;
    case 'yaml':
      return yamlStringify(offers);
    case 'csv':
      return writeCsv(offers);
    default:
      return format satisfies never;
  }
}

/**
 * Dotted columns for nested fields, '|' between list items, every cell quoted. Prices go in a column that says its
 * unit, as integer cents: a sheet's price column mixing whole numbers and fractions with no unit is an error.
 */
function writeCsv(offers: readonly WrittenOffer[]): string {
  const columns: string[] = [];
  for (const o of offers)
    for (const [k, v] of Object.entries(o)) {
      const names = isCredentials(v) ? Object.keys(v).map((n) => `${k}.${n}`) : [k];
      for (const name of names) if (!columns.includes(name)) columns.push(name);
    }
  const cell = (o: WrittenOffer, column: string): string => {
    const [k, nested] = column.split('.') as [string, string | undefined];
    const v = o[k];
    if (v === undefined) return '';
    if (k === 'price' && typeof v === 'number') return `"${Number.isInteger(v) ? v : Math.round(v * 100)}"`;
    const s =
      nested !== undefined ? (isCredentials(v) ? (v[nested] ?? '') : '') : Array.isArray(v) ? v.join('|') : String(v);
    return `"${s.replaceAll('"', '""')}"`;
  };
  const header = columns.map((c) => (c === 'price' ? 'price_cents' : c));
  return `${[header.join(','), ...offers.map((o) => columns.map((c) => cell(o, c)).join(','))].join('\r\n')}\r\n`;
}

function isCredentials(v: unknown): v is Credentials {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
