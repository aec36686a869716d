// The part of normalising a record that every kind shares, driven by the kind's field table: identity first,
// then each field as written (aliases, legacy names, unknown fields), each value by its type, then the required
// fields; every problem addressed (file, line and column or pointer, external_id, field). The canonical values
// are kept by their API names; the kind's normaliser (normalise-account.ts, ...) reads them back typed.
import { forbiddenKeyMessage, forbiddenKeyPaths } from '../input/forbidden-keys.ts';
import { pointerToken, type CatalogueProblem } from './catalogue-problem.ts';
import type { AccountDetails, JsonValue, OfferKind } from './desired-offer.ts';
import type { FieldSpec, FieldTable } from './field-spec.ts';
import type { Locator, RawRecord } from './formats/parsed-file.ts';
import { canonicalJson } from './hash.ts';
import type { ImagePathRef, InvalidRecord, NormalisedOffer, RecordSource, ValidRecord } from './normalised-offer.ts';
import { typeName, typeOnly } from './price.ts';
import { combinedRank } from './rank.ts';
import { unknownFieldMessage } from './suggest.ts';
import {
  normBool,
  normDivision,
  normEnum,
  normImageIds,
  normInt,
  normList,
  normPrice,
  normRank,
  normString,
  ownString,
  type Reporter,
  type SharedStrings,
  shared,
} from './values.ts';

type Path = readonly (string | number)[];

/** A raw object of a parsed file, before any check. */
type RawObject = { readonly [key: string]: unknown };

function isPlainObject(v: unknown): v is RawObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Unknown account details are passed on as written, and hashing walks them recursively: a value nested
 * thousands of levels deep (fuzzing found it) overflowed the stack and failed the whole catalogue load.
 */
const MAX_DETAIL_NESTING = 32;

/** An account detail as written, as a JSON value; undefined when nested deeper than `limit` (or not JSON). */
function detailValue(v: unknown, limit: number, own: (s: string) => string): JsonValue | undefined {
  if (typeof v === 'string') return own(v);
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v !== 'object' || limit === 0) return undefined;
  if (Array.isArray(v)) {
    const out: JsonValue[] = [];
    for (const x of v) {
      const j = detailValue(x, limit - 1, own);
      if (j === undefined) return undefined;
      out.push(j);
    }
    return out;
  }
  if (!isPlainObject(v)) return undefined;
  const out: { [key: string]: JsonValue } = {};
  for (const [k, x] of Object.entries(v)) {
    const j = detailValue(x, limit - 1, own);
    if (j === undefined) return undefined;
    out[k] = j;
  }
  return out;
}

export interface NestedTables {
  readonly parameters: FieldTable;
  readonly credentials: FieldTable;
}
const NO_NESTED: NestedTables = { parameters: {}, credentials: {} };

const NO_IMAGES: readonly ImagePathRef[] = [];

/** The required fields of a table but external_id (read first), in the table's order; found once per table. */
const REQUIRED = new WeakMap<FieldTable, readonly string[]>();
function requiredOf(table: FieldTable): readonly string[] {
  let names = REQUIRED.get(table);
  if (!names) {
    names = Object.keys(table).filter((n) => table[n]!.required && n !== 'external_id');
    REQUIRED.set(table, names);
  }
  return names;
}

const RANK_DIVISION: Readonly<Record<string, string>> = {
  current_rank: 'current_division',
  flex_rank: 'flex_division',
  previous_rank: 'previous_division',
};

// A class rather than closures: one record at a time, 100k times a load, so nothing is allocated per
// field beyond the values themselves.
export class RecordWalker implements Reporter {
  private readonly problems: CatalogueProblem[] = [];
  private errors = 0;
  private externalId: string | undefined;
  /** Canonical values by target name; nested ones dotted (parameters.level, credentials.login). */
  private readonly values = new Map<string, JsonValue>();
  /** Objects the record states even when empty (parameters: {}). */
  private containers: Set<string> | undefined;
  private images: ImagePathRef[] | undefined;
  /** Created when first needed, as the two above: most records need none of them. */
  private failed: Set<string> | undefined;
  /** Path of the value being normalised, for the problems the value normalisers report. */
  private path: Path = [];
  private readonly source: RecordSource;

  constructor(
    private readonly kind: OfferKind,
    private readonly table: FieldTable,
    private readonly record: RawRecord,
    private readonly file: string,
    private readonly locate: Locator | undefined,
    /** The tables of the objects nested in a record (accounts only). */
    private readonly nested: NestedTables = NO_NESTED,
    private readonly sharedStrings?: SharedStrings,
  ) {
    this.source = {
      ...(record.line !== undefined ? { line: record.line } : {}),
      ...(record.pointer !== undefined ? { pointer: record.pointer } : {}),
    };
  }

  error(message: string): void {
    this.add('error', this.path, message);
  }

  warn(message: string): void {
    this.add('warning', this.path, message);
  }

  own(s: string, share = true): string {
    // Values of JSON and NDJSON files are new strings already (JSON.parse); CSV and YAML ones may be slices.
    const copy = this.record.fromText === true;
    if (share && this.sharedStrings) return shared(this.sharedStrings, s, copy);
    return copy ? ownString(s) : s;
  }

  /**
   * Reads the record: its identity, each field, the required ones. Returns its external_id when it can be an
   * offer (no error), else undefined: then invalid() says why.
   */
  walk(): string | undefined {
    const obj = this.record.value;
    if (!isPlainObject(obj)) {
      this.add('error', [], `expected an offer (an object with external_id, ...), got ${typeName(obj)}`);
      return undefined;
    }
    // Identity first, so that every later problem names it.
    const rawId = obj.external_id;
    if (typeof rawId === 'string' && rawId.trim() !== '') this.externalId = this.own(rawId.trim(), false);
    else if (typeof rawId === 'number' && Number.isSafeInteger(rawId)) {
      this.externalId = String(rawId);
      this.add(
        'warning',
        ['external_id'],
        `external_id should be a string: taken as '${this.externalId}'; put it in quotes`,
      );
    } else {
      const got = rawId === undefined || rawId === null || rawId === '' ? 'it is missing' : `got ${typeName(rawId)}`;
      this.add(
        'error',
        ['external_id'],
        `external_id is required: a non-empty string, unique among the ${this.kind} offers; ${got}`,
      );
    }

    // A malformed row (CSV cells shifted by an unquoted comma): its other fields would only mislead.
    if (this.record.error) {
      this.add('error', [], this.record.error);
      return undefined;
    }

    // A forbidden key anywhere in the record: the parsers kept it as data, but what the seller meant is unknown.
    const forbidden = this.record.keysChecked ? [] : forbiddenKeyPaths(obj);
    for (const path of forbidden) this.add('error', path, forbiddenKeyMessage(String(path[path.length - 1])));
    if (forbidden.length > 0) return undefined;

    // Cells the spreadsheet itself shows as errors: what was meant is unknown, so the offer is not synced.
    for (const e of this.record.fieldErrors ?? []) {
      this.add('error', e.path, e.message);
      this.fail(e.path.join('.')); // not "required" as well
    }

    for (const key in obj) {
      if (key === 'external_id' || key === '$schema') continue;
      const v = obj[key];
      const spec = Object.hasOwn(this.table, key) ? this.table[key] : undefined;
      if (!spec) {
        this.add('warning', [key], unknownFieldMessage(key, Object.keys(this.table)));
        continue;
      }
      if (v === null || v === undefined) continue;
      const target = spec.target ?? key;
      this.normValue(spec, v, [key], target);
      if (spec.legacy && !this.failed?.has(target)) {
        this.add('warning', [key], `'${key}' is not a field of the API: it was moved to ${target}; write it there`);
      }
    }

    for (const name of requiredOf(this.table)) {
      if (!this.values.has(name) && !this.failed?.has(name)) {
        this.add('error', [name], `${name} is required: ${this.table[name]!.description}`);
      }
    }
    return this.errors > 0 ? undefined : this.externalId;
  }

  invalid(): InvalidRecord {
    return {
      valid: false,
      problems: this.problems,
      source: this.source,
      ...(this.externalId !== undefined ? { externalId: this.externalId } : {}),
    };
  }

  valid<O extends NormalisedOffer>(offer: O): ValidRecord<O> {
    return { valid: true, externalId: offer.externalId, offer, problems: this.problems, source: this.source };
  }

  /** The gallery images the record names, in order. */
  imagePaths(): readonly ImagePathRef[] {
    return this.images ?? NO_IMAGES;
  }

  // Typed reads of the canonical values. A value of another type means the field table and the kind's
  // normaliser disagree: a bug, not a problem of the file.

  text(name: string): string | undefined {
    const v = this.values.get(name);
    if (v === undefined || typeof v === 'string') return v;
    return this.mismatch(name, v, 'a string');
  }

  number(name: string): number | undefined {
    const v = this.values.get(name);
    if (v === undefined || typeof v === 'number') return v;
    return this.mismatch(name, v, 'a number');
  }

  bool(name: string): boolean | undefined {
    const v = this.values.get(name);
    if (v === undefined || typeof v === 'boolean') return v;
    return this.mismatch(name, v, 'true or false');
  }

  /** A rank or a division: a canonical name or a numeric id. */
  nameOrId(name: string): string | number | undefined {
    const v = this.values.get(name);
    if (v === undefined || typeof v === 'string' || typeof v === 'number') return v;
    return this.mismatch(name, v, 'a name or an id');
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    const found = allowed.find((a) => a === v);
    return found ?? this.mismatch(name, v, `one of ${allowed.join(', ')}`);
  }

  // Lists are copied to arrays of their exact length: an array grown by push keeps spare room, and every
  // loaded offer keeps its lists.
  strings(name: string): readonly string[] | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    if (Array.isArray(v)) {
      const out = new Array<string>(v.length);
      let i = 0;
      for (const x of v) if (typeof x === 'string') out[i++] = x;
      if (i === v.length) return out;
    }
    return this.mismatch(name, v, 'a list of strings');
  }

  numbers(name: string): readonly number[] | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    if (Array.isArray(v)) {
      const out = new Array<number>(v.length);
      let i = 0;
      for (const x of v) if (typeof x === 'number') out[i++] = x;
      if (i === v.length) return out;
    }
    return this.mismatch(name, v, 'a list of numbers');
  }

  /** The values of a required field: the walk reported its absence, so here it is there. */
  requiredText(name: string): string {
    return this.text(name) ?? this.mismatch(name, undefined, 'a string (required)');
  }

  requiredNumber(name: string): number {
    return this.number(name) ?? this.mismatch(name, undefined, 'a number (required)');
  }

  /** The object of details under `container` (parameters); undefined when the record states none. */
  details(container: string): AccountDetails | undefined {
    if (!this.containers?.has(container)) return undefined;
    const prefix = `${container}.`;
    const out: { [detail: string]: JsonValue } = {};
    for (const [name, v] of this.values) if (name.startsWith(prefix)) out[name.slice(prefix.length)] = v;
    return out;
  }

  private mismatch(name: string, v: JsonValue | undefined, expected: string): never {
    throw new Error(
      `${this.kind} normaliser: ${name} is ${v === undefined ? 'missing' : typeName(v)} where ${expected} was ` +
        'expected: its field table and its normaliser disagree',
    );
  }

  private pointerOf(path: Path): string | undefined {
    if (this.record.pointer === undefined) return undefined;
    let p = this.record.pointer;
    for (const k of path) p += `/${pointerToken(k)}`;
    return p;
  }

  private add(severity: 'error' | 'warning', path: Path, message: string): void {
    if (severity === 'error') this.errors++;
    const pointer = this.pointerOf(path);
    const at = this.locate?.(this.record, path);
    this.problems.push({
      severity,
      file: this.file,
      ...(at
        ? { line: at.line, column: at.column, ...(at.cell !== undefined ? { cell: at.cell } : {}) }
        : this.record.line !== undefined
          ? { line: this.record.line }
          : {}),
      ...(pointer !== undefined ? { pointer } : {}),
      ...(path.length > 0 ? { field: path.join('.') } : {}),
      kind: this.kind,
      ...(this.externalId !== undefined ? { externalId: this.externalId } : {}),
      message,
    });
  }

  private fail(target: string): void {
    if (!this.failed) this.failed = new Set();
    this.failed.add(target);
  }

  /** Keeps a value under its canonical name; two names for one field (aliases) must agree. */
  private assign(target: string, value: JsonValue, fromPath: Path): void {
    const existing = this.values.get(target);
    if (existing === undefined) {
      this.values.set(target, value);
      return;
    }
    if (canonicalJson(existing) !== canonicalJson(value)) {
      const from = fromPath.join('.');
      this.add(
        'error',
        fromPath,
        `'${from}' gives ${target} a second time and disagrees (${canonicalJson(existing)} before, ` +
          `${canonicalJson(value)} here): keep one`,
      );
      this.fail(target);
    }
  }

  private normValue(spec: FieldSpec, v: unknown, path: Path, target: string): void {
    const before = this.errors;
    const saved = this.path;
    this.path = path;
    let value: JsonValue | undefined;
    switch (spec.type) {
      case 'string':
        value = normString(v, spec, this);
        break;
      case 'int':
        value = normInt(v, spec, this);
        break;
      case 'price':
        value = normPrice(v, this, this.record.decimalMark);
        break;
      case 'bool':
        value = normBool(v, this);
        break;
      case 'enum':
        value = normEnum(v, spec, this);
        break;
      case 'rank': {
        const rank = normRank(v, this);
        if (rank === undefined) break;
        if (target.startsWith('parameters.')) value = combinedRank(rank);
        else {
          value = rank.rank;
          const divisionTarget = RANK_DIVISION[target];
          if (rank.division !== undefined && divisionTarget) this.assign(divisionTarget, rank.division, path);
        }
        break;
      }
      case 'division':
        value = normDivision(v, this);
        break;
      case 'list':
      case 'urls':
        value = normList(v, this, spec.type === 'list');
        break;
      case 'images': {
        const l = normList(v, this, false);
        if (l === undefined) break;
        const base = this.pointerOf(path);
        const field = path.join('.');
        if (!this.images) this.images = [];
        for (let i = 0; i < l.length; i++)
          this.images.push({
            path: l[i]!,
            field,
            at: Array.isArray(v) ? [...path, i] : path,
            ...(base !== undefined ? { pointer: `${base}/${i}` } : {}),
          });
        break;
      }
      case 'image_ids':
        value = normImageIds(v, this);
        break;
      case 'parameters': {
        if (!isPlainObject(v)) {
          this.error(`expected an object of account details (level, rank, ...), got ${typeName(v)}`);
          break;
        }
        if (!this.containers) this.containers = new Set();
        this.containers.add('parameters');
        for (const k in v) {
          const pv = v[k];
          if (pv === null || pv === undefined) continue;
          const known = Object.hasOwn(this.nested.parameters, k) ? this.nested.parameters[k] : undefined;
          if (known) {
            this.normValue(known, pv, [...path, k], `parameters.${k}`);
            continue;
          }
          const detail = detailValue(typeof pv === 'string' ? pv.trim() : pv, MAX_DETAIL_NESTING, (s) => this.own(s));
          if (detail === undefined) {
            this.path = [...path, k];
            this.error(
              `nested more than ${MAX_DETAIL_NESTING} levels deep: an account detail is a value, a list or a small ` +
                `object`,
            );
            this.path = path;
          } else this.assign(`parameters.${k}`, detail, [...path, k]);
        }
        break;
      }
      case 'credentials': {
        if (!isPlainObject(v)) {
          // Never quoted: a string here is most likely the login and password themselves.
          this.error(`expected an object {login, password, email_login, email_password}, got ${typeOnly(v)}`);
          break;
        }
        for (const k in v) {
          const cv = v[k];
          if (cv === null || cv === undefined) continue;
          const known = Object.hasOwn(this.nested.credentials, k) ? this.nested.credentials[k] : undefined;
          if (known) this.normValue(known, cv, [...path, k], `credentials.${k}`);
          else
            this.add(
              'warning',
              [...path, k],
              unknownFieldMessage(k, Object.keys(this.nested.credentials), 'credentials field'),
            );
        }
        break;
      }
      default:
        spec.type satisfies never;
    }
    if (value !== undefined) this.assign(target, value, path);
    this.path = saved;
    if (this.errors > before) this.fail(target);
  }
}
