// The part of normalising a record that every kind shares, driven by the kind's field table: identity first,
// then each field as written (aliases, legacy names, unknown fields), each value by its type, then the required
// fields; every problem addressed (record-problems.ts: file, line and column or pointer, external_id, field). The
// canonical values are kept by their API names; the kind's normaliser (normalise-account.ts, ...) reads them back
// typed through values() (record-values.ts).
import { forbiddenKeyMessage, forbiddenKeyPaths } from '../input/forbidden-keys.ts';
import { detailValue, isPlainObject, MAX_DETAIL_NESTING } from './account-details.ts';
import type { JsonValue, OfferKind } from './desired-offer.ts';
import type { FieldSpec, FieldTable } from './field-spec.ts';
import type { Locator, RawRecord } from './formats/parsed-file.ts';
import { canonicalJson } from './hash.ts';
import { externalIdProblem } from './identity.ts';
import type { ImagePathRef, InvalidRecord, NormalisedOffer, RecordSource, ValidRecord } from './normalised-offer.ts';
import { typeName, typeOnly } from './price.ts';
import { combinedRank } from './rank.ts';
import { type RecordPath, RecordProblems } from './record-problems.ts';
import { type NoFields, RecordValues } from './record-values.ts';
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

type Path = RecordPath;

/** The tables of the objects nested in a record (accounts only); C, the credentials', is typed for reading back. */
export interface NestedTables<C extends FieldTable = FieldTable> {
  readonly parameters: FieldTable;
  readonly credentials: C;
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
const RANK_LP: Readonly<Record<string, string>> = {
  current_rank: 'current_lp',
  flex_rank: 'flex_lp',
  previous_rank: 'previous_lp',
};

// A class rather than closures: one record at a time, 100k times a load, so nothing is allocated per
// field beyond the values themselves. T and C are the types of the record's table and of its credentials' table:
// the values are read back by the names they know (record-values.ts).
export class RecordWalker<T extends FieldTable, C extends FieldTable = NoFields> implements Reporter {
  private readonly problems: RecordProblems;
  /** Canonical values by target name; nested ones dotted (parameters.level, credentials.login). */
  private readonly byName = new Map<string, JsonValue>();
  /** Objects the record states even when empty (parameters: {}). */
  private containers: Set<string> | undefined;
  private images: ImagePathRef[] | undefined;
  /** Created when first needed, as the two above: most records need none of them. */
  private failed: Set<string> | undefined;
  /** Path of the value being normalised, for the problems the value normalisers report. */
  private path: Path = [];
  private readonly source: RecordSource;
  private readonly table: FieldTable;
  private readonly nested: NestedTables;

  constructor(
    private readonly kind: OfferKind,
    table: T,
    private readonly record: RawRecord,
    file: string,
    locate: Locator | undefined,
    /** The tables of the objects nested in a record (accounts only). */
    nested?: NestedTables<C>,
    private readonly sharedStrings?: SharedStrings,
  ) {
    this.problems = new RecordProblems(kind, record, file, locate);
    this.table = table;
    this.nested = nested ?? NO_NESTED;
    this.source = {
      ...(record.line !== undefined ? { line: record.line } : {}),
      ...(record.pointer !== undefined ? { pointer: record.pointer } : {}),
    };
  }

  error(message: string): void {
    this.problems.add('error', this.path, message);
  }

  warn(message: string): void {
    this.problems.add('warning', this.path, message);
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
      this.problems.add('error', [], `expected an offer (an object with external_id, ...), got ${typeName(obj)}`);
      return undefined;
    }
    // Identity first, so that every later problem names it.
    const rawId = obj.external_id;
    if (typeof rawId === 'string' && rawId.trim() !== '') {
      this.problems.externalId = this.own(rawId.trim(), false);
      const refused = externalIdProblem(this.problems.externalId);
      if (refused) this.problems.add('error', ['external_id'], refused);
    } else if (typeof rawId === 'number' && Number.isSafeInteger(rawId)) {
      this.problems.externalId = String(rawId);
      this.problems.add(
        'warning',
        ['external_id'],
        `external_id should be a string: taken as '${this.problems.externalId}'; put it in quotes`,
      );
    } else {
      const got = rawId === undefined || rawId === null || rawId === '' ? 'it is missing' : `got ${typeName(rawId)}`;
      this.problems.add(
        'error',
        ['external_id'],
        `external_id is required: a non-empty string, unique among the ${this.kind} offers; ${got}`,
      );
    }

    // A malformed row (CSV cells shifted by an unquoted comma): its other fields would only mislead.
    if (this.record.error) {
      this.problems.add('error', [], this.record.error);
      return undefined;
    }

    // A forbidden key anywhere in the record: the parsers kept it as data, but what the seller meant is unknown.
    const forbidden = this.record.keysChecked ? [] : forbiddenKeyPaths(obj);
    for (const path of forbidden) this.problems.add('error', path, forbiddenKeyMessage(String(path[path.length - 1])));
    if (forbidden.length > 0) return undefined;

    // Cells the spreadsheet itself shows as errors: what was meant is unknown, so the offer is not synced.
    for (const e of this.record.fieldErrors ?? []) {
      this.problems.add('error', e.path, e.message);
      this.fail(e.path.join('.')); // not "required" as well
    }

    for (const key in obj) {
      if (key === 'external_id' || key === '$schema') continue;
      const v = obj[key];
      const spec = Object.hasOwn(this.table, key) ? this.table[key] : undefined;
      if (!spec) {
        this.problems.add('warning', [key], unknownFieldMessage(key, Object.keys(this.table)));
        continue;
      }
      if (v === null || v === undefined) continue;
      const target = spec.target ?? key;
      this.normValue(spec, v, [key], target);
      if (spec.legacy && !this.failed?.has(target)) {
        this.problems.add(
          'warning',
          [key],
          `'${key}' is not a field of the API: it was moved to ${target}; write it there`,
        );
      }
    }

    for (const name of requiredOf(this.table)) {
      if (!this.byName.has(name) && !this.failed?.has(name)) {
        this.problems.add('error', [name], `${name} is required: ${this.table[name]!.description}`);
      }
    }
    return this.problems.errors > 0 ? undefined : this.problems.externalId;
  }

  invalid(): InvalidRecord {
    return {
      valid: false,
      problems: this.problems.list,
      source: this.source,
      ...(this.problems.externalId !== undefined ? { externalId: this.problems.externalId } : {}),
    };
  }

  valid<O extends NormalisedOffer>(offer: O): ValidRecord<O> {
    return { valid: true, externalId: offer.externalId, offer, problems: this.problems.list, source: this.source };
  }

  /** The gallery images the record names, in order. */
  imagePaths(): readonly ImagePathRef[] {
    return this.images ?? NO_IMAGES;
  }

  /** The canonical values, to be read back typed by the names T and C know. */
  values(): RecordValues<T, C> {
    return new RecordValues<T, C>(this.kind, this.byName, this.containers);
  }

  private fail(target: string): void {
    if (!this.failed) this.failed = new Set();
    this.failed.add(target);
  }

  /** Keeps a value under its canonical name; two names for one field (aliases) must agree. */
  private assign(target: string, value: JsonValue, fromPath: Path): void {
    const existing = this.byName.get(target);
    if (existing === undefined) {
      this.byName.set(target, value);
      return;
    }
    if (canonicalJson(existing) !== canonicalJson(value)) {
      const from = fromPath.join('.');
      this.problems.add(
        'error',
        fromPath,
        `'${from}' gives ${target} a second time and disagrees (${canonicalJson(existing)} before, ` +
          `${canonicalJson(value)} here): keep one`,
      );
      this.fail(target);
    }
  }

  private normValue(spec: FieldSpec, v: unknown, path: Path, target: string): void {
    const before = this.problems.errors;
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
        value = normPrice(v, this, this.record.decimalMark, this.record.priceUnit);
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
          const lpTarget = RANK_LP[target];
          if (rank.lp !== undefined && lpTarget) this.assign(lpTarget, rank.lp, path);
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
        const base = this.problems.pointerOf(path);
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
            this.problems.add(
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
    if (this.problems.errors > before) this.fail(target);
  }
}
