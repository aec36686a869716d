// The header row of a CSV or spreadsheet file, matched to field names as sellers write them: letter case,
// spaces, dashes and underscores do not count ('External ID', 'external-id' and 'External_Id' are external_id),
// in each segment of a dotted name ('Credentials.Email Login' is credentials.email_login). A column that names
// no field is said once, at its header cell, and not read: one warning, not one per row.
import { CREDENTIAL_FIELDS, PARAMETER_FIELDS, ACCOUNT_FIELDS } from './account-schema.ts';
import type { OfferKind } from './desired-offer.ts';
import type { FieldSpec, FieldTable } from './field-spec.ts';
import { ITEM_FIELDS } from './item-schema.ts';
import { suggest } from './suggest.ts';
import { TOPUP_FIELDS } from './topup-schema.ts';

export type HeaderMatch = { readonly name: string } | { readonly unknown: string; readonly message: string };

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
  const s = suggest(written.toLowerCase().replace(/[\s-]+/g, '_'), candidates);
  return {
    unknown: written,
    message:
      `column '${written}' names no ${what}${s ? `: did you mean '${s}'?` : ''}; its cells are not read ` +
      '(rename the header, or remove the column)',
  };
}

/** The field a header cell names for offers of `kind` (dotted for a nested one), or why it names none. */
export function matchHeader(written: string, kind: OfferKind): HeaderMatch {
  if (written === '$schema') return { name: written };
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
