// One raw record to the canonical fields of its kind, with every problem addressed (file, line or
// pointer, external_id, field). Images are only collected here; catalogue.ts reads them.
import { ACCOUNT_FIELDS, CREDENTIAL_FIELDS, PARAMETER_FIELDS } from './account-schema.ts';
import { pointerToken, type CatalogueProblem } from './catalogue-problem.ts';
import type { OfferKind } from './desired-offer.ts';
import type { FieldSpec, FieldTable } from './field-spec.ts';
import type { Locator, RawRecord } from './formats.ts';
import { canonicalJson } from './hash.ts';
import { ITEM_FIELDS } from './item-schema.ts';
import { typeName } from './price.ts';
import { combinedRank } from './rank.ts';
import { unknownFieldMessage } from './suggest.ts';
import { TOPUP_FIELDS } from './topup-schema.ts';
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
  type Reporter,
} from './values.ts';

export const FIELD_TABLES: Readonly<Record<OfferKind, FieldTable>> = {
  account: ACCOUNT_FIELDS,
  item: ITEM_FIELDS,
  topup: TOPUP_FIELDS,
};

export interface ImagePathRef {
  readonly path: string;
  readonly pointer?: string;
  readonly field: string;
  /** Where the image's name is inside the record, to locate a problem with it. */
  readonly at: readonly (string | number)[];
}

export interface NormalisedRecord {
  /** Undefined when the record has no usable external_id: its identity is unknown. */
  readonly externalId?: string;
  readonly valid: boolean;
  readonly fields: Record<string, unknown>;
  readonly credentials?: Record<string, string>;
  readonly images: readonly ImagePathRef[];
  readonly problems: CatalogueProblem[];
  readonly source: { readonly line?: number; readonly pointer?: string };
}

type Path = readonly (string | number)[];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Unknown account details are passed on as written, and hashing walks them recursively: a value nested
 * thousands of levels deep (fuzzing found it) overflowed the stack and failed the whole catalogue load.
 */
const MAX_DETAIL_NESTING = 32;

function nestedDeeperThan(v: unknown, limit: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (limit === 0) return true;
  for (const x of Array.isArray(v) ? v : Object.values(v)) if (nestedDeeperThan(x, limit - 1)) return true;
  return false;
}

const RANK_DIVISION: Readonly<Record<string, string>> = {
  current_rank: 'current_division',
  flex_rank: 'flex_division',
  previous_rank: 'previous_division',
};

export function normaliseRecord(kind: OfferKind, record: RawRecord, file: string, locate?: Locator): NormalisedRecord {
  return new RecordNormaliser(kind, record, file, locate).run();
}

// A class rather than closures: one record at a time, 100k times a load, so nothing is allocated per
// field beyond the values themselves.
class RecordNormaliser implements Reporter {
  private readonly table: FieldTable;
  private readonly problems: CatalogueProblem[] = [];
  private errors = 0;
  private externalId: string | undefined;
  private readonly out: Record<string, unknown> = {};
  private readonly images: ImagePathRef[] = [];
  private readonly failed = new Set<string>();
  /** Path of the value being normalised, for the problems the value normalisers report. */
  private path: Path = [];
  private readonly source: { readonly line?: number; readonly pointer?: string };

  constructor(
    private readonly kind: OfferKind,
    private readonly record: RawRecord,
    private readonly file: string,
    private readonly locate: Locator | undefined,
  ) {
    this.table = FIELD_TABLES[kind];
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
      ...(at ? { line: at.line, column: at.column } : this.record.line !== undefined ? { line: this.record.line } : {}),
      ...(pointer !== undefined ? { pointer } : {}),
      ...(path.length > 0 ? { field: path.join('.') } : {}),
      kind: this.kind,
      ...(this.externalId !== undefined ? { externalId: this.externalId } : {}),
      message,
    });
  }

  private fail(): NormalisedRecord {
    return {
      valid: false,
      fields: {},
      images: [],
      problems: this.problems,
      source: this.source,
      ...(this.externalId !== undefined ? { externalId: this.externalId } : {}),
    };
  }

  run(): NormalisedRecord {
    const obj = this.record.value;
    if (!isPlainObject(obj)) {
      this.add('error', [], `expected an offer (an object with external_id, ...), got ${typeName(obj)}`);
      return this.fail();
    }
    // Identity first, so that every later problem names it.
    const rawId = obj.external_id;
    if (typeof rawId === 'string' && rawId.trim() !== '') this.externalId = rawId.trim();
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
      return this.fail();
    }

    for (const key in obj) {
      if (key === 'external_id' || key === '$schema') continue;
      const v = obj[key];
      const spec = this.table[key];
      if (!spec) {
        this.add('warning', [key], unknownFieldMessage(key, Object.keys(this.table)));
        continue;
      }
      if (v === null || v === undefined) continue;
      const target = spec.target ?? key;
      this.normValue(spec, v, [key], target);
      if (spec.legacy && !this.failed.has(target)) {
        this.add('warning', [key], `'${key}' is not a field of the API: it was moved to ${target}; write it there`);
      }
    }

    for (const name in this.table) {
      const spec = this.table[name]!;
      if (spec.required && name !== 'external_id' && this.out[name] === undefined && !this.failed.has(name)) {
        this.add('error', [name], `${name} is required: ${spec.description}`);
      }
    }
    if (this.externalId === undefined || this.errors > 0) return this.fail();
    const out = this.out;
    const credentials = out.credentials as Record<string, string> | undefined;
    delete out.credentials;
    return {
      externalId: this.externalId,
      valid: true,
      fields: out,
      ...(credentials ? { credentials } : {}),
      images: this.images,
      problems: this.problems,
      source: this.source,
    };
  }

  /** Writes a value under its canonical name; two names for one field (aliases) must agree. */
  private assign(target: string, value: unknown, fromPath: Path): void {
    const out = this.out;
    const dot = target.indexOf('.');
    let holder = out;
    let name = target;
    if (dot > 0) {
      const container = target.slice(0, dot);
      name = target.slice(dot + 1);
      const existing = out[container] as Record<string, unknown> | undefined;
      holder = existing ?? {};
      if (!existing) out[container] = holder;
    }
    const existing = holder[name];
    if (existing === undefined) {
      holder[name] = value;
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
      this.failed.add(target);
    }
  }

  private normValue(spec: FieldSpec, v: unknown, path: Path, target: string): void {
    const before = this.errors;
    const saved = this.path;
    this.path = path;
    let value: unknown;
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
        if (this.out.parameters === undefined) this.out.parameters = {};
        for (const k in v) {
          const pv = v[k];
          if (pv === null || pv === undefined) continue;
          const known = PARAMETER_FIELDS[k];
          if (known) this.normValue(known, pv, [...path, k], `parameters.${k}`);
          else if (nestedDeeperThan(pv, MAX_DETAIL_NESTING)) {
            this.path = [...path, k];
            this.error(
              `nested more than ${MAX_DETAIL_NESTING} levels deep: an account detail is a value, a list or a small ` +
                `object`,
            );
            this.path = path;
          } else this.assign(`parameters.${k}`, typeof pv === 'string' ? pv.trim() : pv, [...path, k]);
        }
        break;
      }
      case 'credentials': {
        if (!isPlainObject(v)) {
          this.error(`expected an object {login, password, email_login, email_password}, got ${typeName(v)}`);
          break;
        }
        for (const k in v) {
          const cv = v[k];
          if (cv === null || cv === undefined) continue;
          const known = CREDENTIAL_FIELDS[k];
          if (known) this.normValue(known, cv, [...path, k], `credentials.${k}`);
          else
            this.add(
              'warning',
              [...path, k],
              unknownFieldMessage(k, Object.keys(CREDENTIAL_FIELDS), 'credentials field'),
            );
        }
        break;
      }
      default:
        spec.type satisfies never;
    }
    if (value !== undefined) this.assign(target, value, path);
    this.path = saved;
    if (this.errors > before) this.failed.add(target);
  }
}
