// The header row of a CSV or spreadsheet file, matched to field names as sellers write them: letter case,
// spaces, dashes and underscores do not count ('External ID', 'external-id' and 'External_Id' are external_id),
// in each segment of a dotted name ('Credentials.Email Login' is credentials.email_login). A column that names
// no field is said once, at its header cell, and not read: one warning, not one per row. A column whose header
// starts with # or _, or that catalogue.ignoreColumns lists, is the seller's own (a purchase price, notes) and is
// passed over without a word. Headers sellers commonly write ('ID', 'SKU', 'Email') name their field, and a price
// header may state its unit ('Price (EUR)', 'price_cents'), which then decides what a whole number means.
import { CREDENTIAL_FIELDS, PARAMETER_FIELDS, ACCOUNT_FIELDS } from './account-schema.ts';
import type { OfferKind } from './desired-offer.ts';
import type { FieldSpec, FieldTable } from './field-spec.ts';
import { ITEM_FIELDS } from './item-schema.ts';
import type { PriceUnit } from './price.ts';
import { suggest } from './suggest.ts';
import { TOPUP_FIELDS } from './topup-schema.ts';

export type HeaderMatch =
  | { readonly name: string; readonly priceUnit?: PriceUnit }
  | { readonly ignored: string }
  | { readonly unknown: string; readonly message: string };

export interface HeaderOptions {
  /** catalogue.ignoreColumns: headers of the seller's own columns, compared as headers are. */
  readonly ignoreColumns?: readonly string[];
}

/** Headers sellers write for a field, by headerKey; every kind. */
const COMMON_HEADERS: ReadonlyMap<string, string> = new Map([
  ['id', 'external_id'],
  ['sku', 'external_id'],
  ['offerid', 'external_id'],
]);

/** ... and for accounts: the login details go to credentials, never to a field of the listing. */
const ACCOUNT_HEADERS: ReadonlyMap<string, string> = new Map([
  ['login', 'credentials.login'],
  ['username', 'credentials.login'],
  ['password', 'credentials.password'],
  ['email', 'credentials.email_login'],
  ['mail', 'credentials.email_login'],
  ['emaillogin', 'credentials.email_login'],
  ['emailpassword', 'credentials.email_password'],
  ['emailpass', 'credentials.email_password'],
  ['mailpassword', 'credentials.email_password'],
  ['ign', 'in_game_name'],
  ['summonername', 'in_game_name'],
  ['riotid', 'in_game_name'],
  ['lp', 'current_lp'],
  ['be', 'blue_essence'],
  ['rp', 'game_points'],
  ['winrate', 'winrate_percent'],
]);

/**
 * ... and for top-ups: the names the marketplace's own site uses (title, amount, unit, image) for the document's
 * offer_title, offer_amount, offer_unit and image.
 */
const TOPUP_HEADERS: ReadonlyMap<string, string> = new Map([
  ['title', 'offer_title'],
  ['name', 'offer_title'],
  ['amount', 'offer_amount'],
  ['unit', 'offer_unit'],
  ['imageurl', 'image'],
]);

/** Columns sellers keep for themselves: named in the hint, which says how to keep one without a word. */
const PRIVATE_HINTS: ReadonlySet<string> = new Set([
  'notes',
  'note',
  'comment',
  'comments',
  'boughtfor',
  'bought',
  'cost',
  'purchaseprice',
  'purchased',
  'profit',
  'margin',
  'source',
  'supplier',
  'sold',
  'soldon',
  'soldfor',
  'buyer',
]);

/** A price header that states its unit: 'Price (EUR)', 'Price in €', 'price_eur', 'price_cents', 'Price [ct]'. */
const PRICE_WITH_UNIT = /^price[\s_-]*[([]?\s*(?:in\s+)?([a-z€$£]+)\s*[)\]]?$/i;
const CENT_WORDS: ReadonlySet<string> = new Set(['cents', 'cent', 'ct', 'cts']);
const MAJOR_WORDS: ReadonlySet<string> = new Set([
  'eur',
  'euro',
  'euros',
  '€',
  'usd',
  '$',
  'gbp',
  '£',
  'chf',
  'pln',
  'sek',
  'nok',
  'dkk',
  'czk',
  'try',
  'major',
]);

/** The unit a price header states, if it is a price header that states one. */
export function priceHeaderUnit(written: string): PriceUnit | undefined {
  const m = PRICE_WITH_UNIT.exec(written.trim());
  if (!m) return undefined;
  const word = m[1]!.toLowerCase();
  return CENT_WORDS.has(word) ? 'cents' : MAJOR_WORDS.has(word) ? 'major' : undefined;
}

/** Whether a column is the seller's own: its header starts with # or _, or catalogue.ignoreColumns lists it. */
export function isOwnColumn(written: string, options?: HeaderOptions): boolean {
  const s = written.trim();
  if (s.startsWith('#') || s.startsWith('_')) return true;
  const key = headerKey(s);
  return options?.ignoreColumns?.some((c) => headerKey(c) === key) ?? false;
}

const TABLES: { readonly [K in OfferKind]: FieldTable } = {
  account: ACCOUNT_FIELDS,
  item: ITEM_FIELDS,
  topup: TOPUP_FIELDS,
};

/** Tables of the objects a dotted header may reach into, and whether names outside them are kept (details). */
const NESTED: Readonly<Record<string, { readonly table: FieldTable; readonly open: boolean }>> = {
  parameters: { table: PARAMETER_FIELDS, open: true },
  game_data: { table: PARAMETER_FIELDS, open: true },
  credentials: { table: CREDENTIAL_FIELDS, open: false },
};

/** What a header is compared by: lower case, without spaces, dashes and underscores. */
export function headerKey(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}

const byKey = new WeakMap<FieldTable, ReadonlyMap<string, string>>();
function keysOf(table: FieldTable): ReadonlyMap<string, string> {
  let m = byKey.get(table);
  if (!m) {
    m = new Map(Object.keys(table).map((n) => [headerKey(n), n]));
    byKey.set(table, m);
  }
  return m;
}

function unknown(written: string, candidates: Iterable<string>, what: string): HeaderMatch {
  const keep = `if it is your own, start its header with # ('#${written}') or list it in catalogue.ignoreColumns`;
  if (PRIVATE_HINTS.has(headerKey(written))) {
    return { unknown: written, message: `column '${written}' names no ${what}; its cells are not read: ${keep}` };
  }
  const s = suggest(written.toLowerCase().replace(/[\s-]+/g, '_'), candidates);
  return {
    unknown: written,
    message:
      `column '${written}' names no ${what}${s ? `: did you mean '${s}'?` : ''}; its cells are not read ` +
      `(rename the header; ${keep})`,
  };
}

/** The field a header cell names for offers of `kind` (dotted for a nested one), or why it names none. */
export function matchHeader(written: string, kind: OfferKind, options?: HeaderOptions): HeaderMatch {
  if (written === '$schema') return { name: written };
  if (isOwnColumn(written, options)) return { ignored: written };
  const unit = priceHeaderUnit(written);
  if (unit) return { name: 'price', priceUnit: unit };
  const key = headerKey(written);
  const alias =
    COMMON_HEADERS.get(key) ??
    (kind === 'account' ? ACCOUNT_HEADERS.get(key) : kind === 'topup' ? TOPUP_HEADERS.get(key) : undefined);
  if (alias !== undefined) return { name: alias };
  const table = TABLES[kind];
  const dot = written.indexOf('.');
  const head = dot > 0 ? written.slice(0, dot).trim() : written;
  const top = keysOf(table).get(headerKey(head));
  if (top === undefined) return unknown(written, Object.keys(table), `field of ${kind} offers`);
  if (dot <= 0) return { name: top };
  const rest = written.slice(dot + 1).trim();
  const nested = NESTED[top];
  // A field that holds no object: the record's checks say what it expects.
  if (!nested) return { name: `${top}.${rest}` };
  const inner = keysOf(nested.table).get(headerKey(rest));
  if (inner !== undefined) return { name: `${top}.${inner}` };
  if (nested.open) return { name: `${top}.${rest}` };
  return unknown(
    written,
    Object.keys(nested.table).map((n) => `${top}.${n}`),
    `${top} field`,
  );
}

/** The spec of a matched (canonical, maybe dotted) field name; undefined for an account detail of no table. */
export function specOf(kind: OfferKind, name: string): FieldSpec | undefined {
  const dot = name.indexOf('.');
  if (dot < 0) return Object.hasOwn(TABLES[kind], name) ? TABLES[kind][name] : undefined;
  const nested = NESTED[name.slice(0, dot)];
  const inner = name.slice(dot + 1);
  return nested && Object.hasOwn(nested.table, inner) ? nested.table[inner] : undefined;
}

/** List columns a sheet may fill with a count instead ('Champions' holding 152): the count's field. */
const COUNT_OF_LIST: ReadonlyMap<string, string> = new Map([
  ['champions', 'champion_count'],
  ['skins', 'skin_count'],
]);

/** The field a cell of column `name` goes to: a whole number in a champions or skins column is their count. */
export function cellField(name: string, cell: unknown): string {
  const count = COUNT_OF_LIST.get(name);
  if (count === undefined) return name;
  const isCount =
    (typeof cell === 'number' && Number.isSafeInteger(cell)) || (typeof cell === 'string' && /^\s*\d+\s*$/.test(cell));
  return isCount ? count : name;
}
