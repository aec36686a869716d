// Normalisers of single values, one per field type. Each returns the canonical value, or undefined when
// the value is absent or wrong (then it has told the reporter what was expected).
import type { FieldSpec } from './field-spec.ts';
import { parsePrice, typeName, typeOnly, type DecimalMark, type PriceUnit } from './price.ts';
import { parseDivision, parseRank } from './rank.ts';
import { suggest } from './suggest.ts';

export interface Reporter {
  error(message: string): void;
  warn(message: string): void;
  /**
   * The string to keep in the offer: never a slice of the file's text, and (unless `share` is false, as for
   * secrets) one copy with the equal strings of other offers.
   */
  own(s: string, share?: boolean): string;
}

/**
 * One copy of each string value of a load's offers, while it loads: a description or a game written the same on
 * thousands of offers is kept once. Secrets (verbatim fields) never go in.
 */
export type SharedStrings = Map<string, string>;

/** `s` from the table, else `s` (its own copy when `copy`), added. */
export function shared(table: SharedStrings, s: string, copy: boolean): string {
  let x = table.get(s);
  if (x === undefined) {
    x = copy ? ownString(s) : s;
    table.set(x, x);
  }
  return x;
}

/**
 * The string as a copy of its own. A value a parser cut out of a file's text (CSV cells, YAML scalars) can be a
 * slice that keeps the whole text alive for as long as the offer holding it: V8 slices strings of 13 characters
 * or more (SlicedString::kMinLength), shorter ones are copied already. JSON.parse always makes new strings.
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

export function normString(
  v: unknown,
  spec: Pick<FieldSpec, 'verbatim' | 'distinct' | 'secret'>,
  r: Reporter,
): string | undefined {
  if (spec.secret && typeof v !== 'string') {
    // A credential written as another type is refused and never quoted: messages reach logs and pages.
    r.error(`expected a string in quotes, got ${typeOnly(v)} (a credential is taken only as a string; not shown)`);
    return undefined;
  }
  if (typeof v === 'string') {
    if (spec.verbatim) return v === '' ? undefined : r.own(v, false);
    // Line ends inside a value must not depend on the editor (CRLF) for the hash to be stable.
    const s = (v.includes('\r') ? v.replace(/\r\n?/g, '\n') : v).trim();
    return s === '' ? undefined : r.own(s, spec.distinct !== true);
  }
  if (typeof v === 'number') {
    r.warn(`expected a string, got the number ${v}: taken as '${v}'; put it in quotes`);
    return String(v);
  }
  r.error(`expected a string, got ${typeName(v)}`);
  return undefined;
}

export function normInt(v: unknown, spec: Pick<FieldSpec, 'min' | 'max'>, r: Reporter): number | undefined {
  let n: number | undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v)) n = v;
  else if (typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v)) n = Number(v);
  const range =
    spec.min !== undefined && spec.max !== undefined
      ? ` from ${spec.min} to ${spec.max}`
      : spec.min !== undefined
        ? ` of at least ${spec.min}`
        : '';
  if (n === undefined || !Number.isSafeInteger(n)) {
    r.error(`expected a whole number${range}, got ${typeName(v)}`);
    return undefined;
  }
  if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
    r.error(`expected a whole number${range}, got ${n}`);
    return undefined;
  }
  return n;
}

export function normPrice(v: unknown, r: Reporter, mark?: DecimalMark, unit?: PriceUnit): number | undefined {
  const p = parsePrice(v, mark, unit);
  if ('error' in p) {
    r.error(p.error);
    return undefined;
  }
  if (p.warning) r.warn(p.warning);
  return p.cents;
}

const TRUE = new Set(['true', 'yes', '1', 'on']);
const FALSE = new Set(['false', 'no', '0', 'off']);

export function normBool(v: unknown, r: Reporter): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (TRUE.has(s)) return true;
    if (FALSE.has(s)) return false;
  }
  r.error(`expected true or false, got ${typeName(v)}`);
  return undefined;
}

export function normEnum(v: unknown, spec: Pick<FieldSpec, 'values' | 'synonyms'>, r: Reporter): string | undefined {
  const values = spec.values ?? [];
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === '') return undefined;
    const canonical = spec.synonyms?.[s] ?? s;
    // The table's own string: one copy for every offer, none of the file's text.
    const known = values.find((x) => x === canonical);
    if (known !== undefined) return known;
    const near = suggest(s, values);
    r.error(`expected one of ${values.join(', ')}, got '${v}'${near ? `: did you mean '${near}'?` : ''}`);
    return undefined;
  }
  r.error(`expected one of ${values.join(', ')}, got ${typeName(v)}`);
  return undefined;
}

/** An array of strings, or one string of comma-separated items. */
export function normList(v: unknown, r: Reporter, splitCommas: boolean): string[] | undefined {
  let items: unknown[];
  if (typeof v === 'string') items = splitCommas ? v.split(',') : [v];
  else if (Array.isArray(v)) items = v;
  else {
    r.error(`expected a list of strings${splitCommas ? ' or one comma-separated string' : ''}, got ${typeName(v)}`);
    return undefined;
  }
  const out: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (typeof item === 'string') {
      const s = item.trim();
      if (s !== '') out.push(r.own(s));
    } else if (typeof item === 'number') out.push(String(item));
    else {
      r.error(`item ${i + 1} of the list: expected a string, got ${typeName(item)}`);
      return undefined;
    }
  }
  return out;
}

const IMAGE_IDS_EXPECTED = 'expected image ids as [1, 2], "1,2", [{"id": 1}] or [{"image_id": 1}]';

/** The four forms of image_ids (API document 2.1) to an array of positive integers. */
export function normImageIds(v: unknown, r: Reporter): number[] | undefined {
  let items: unknown[];
  if (typeof v === 'string') items = v.split(',').filter((s) => s.trim() !== '');
  else if (typeof v === 'number') items = [v];
  else if (Array.isArray(v)) items = v;
  else {
    r.error(`${IMAGE_IDS_EXPECTED}, got ${typeName(v)}`);
    return undefined;
  }
  const out: number[] = [];
  for (let i = 0; i < items.length; i++) {
    let item = items[i];
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      const o = item as Record<string, unknown>;
      item = o.id ?? o.image_id;
    }
    let n: number | undefined;
    if (typeof item === 'number') n = item;
    else if (typeof item === 'string' && /^\s*\d+\s*$/.test(item)) n = Number(item);
    if (n === undefined || !Number.isSafeInteger(n) || n <= 0) {
      r.error(`${IMAGE_IDS_EXPECTED}; item ${i + 1} is ${typeName(items[i])}`);
      return undefined;
    }
    out.push(n);
  }
  return out;
}

/** A rank, its division and league points as read; undefined when absent (unranked) or wrong (then said). */
export function normRank(
  v: unknown,
  r: Reporter,
): { rank: string | number; division?: string; lp?: number } | undefined {
  const res = parseRank(v);
  if ('error' in res) {
    r.error(res.error);
    return undefined;
  }
  return 'unranked' in res ? undefined : res;
}

export function normDivision(v: unknown, r: Reporter): string | number | undefined {
  const res = parseDivision(v);
  if ('error' in res) {
    r.error(res.error);
    return undefined;
  }
  return res.division;
}
