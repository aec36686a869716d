// One raw record to the canonical fields of its kind, with every problem addressed (file, line or
// pointer, external_id, field). Images are only collected here; catalogue.ts reads them.
import { ACCOUNT_FIELDS, CREDENTIAL_FIELDS, PARAMETER_FIELDS } from './account-schema.ts';
import { pointerToken, type CatalogueProblem } from './catalogue-problem.ts';
import type { OfferKind } from './desired-offer.ts';
import type { FieldSpec, FieldTable } from './field-spec.ts';
import type { RawRecord } from './formats.ts';
import { canonicalJson } from './hash.ts';
import { ITEM_FIELDS } from './item-schema.ts';
import { typeName } from './price.ts';
import { combinedRank } from './rank.ts';
import { unknownFieldMessage } from './suggest.ts';
import { TOPUP_FIELDS } from './topup-schema.ts';
import {
  normBool, normDivision, normEnum, normImageIds, normInt, normList, normPrice, normRank, normString, type Reporter,
} from './values.ts';

export const FIELD_TABLES: Readonly<Record<OfferKind, FieldTable>> = { account: ACCOUNT_FIELDS, item: ITEM_FIELDS, topup: TOPUP_FIELDS };

export interface ImagePathRef {
  readonly path: string;
  readonly pointer?: string;
  readonly field: string;
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

const RANK_DIVISION: Readonly<Record<string, string>> = {
  current_rank: 'current_division',
  flex_rank: 'flex_division',
  previous_rank: 'previous_division',
};

export function normaliseRecord(kind: OfferKind, record: RawRecord, file: string): NormalisedRecord {
  const table = FIELD_TABLES[kind];
  const problems: CatalogueProblem[] = [];
  let errors = 0;
  let externalId: string | undefined;
  const where = (path: Path): { line?: number; pointer?: string; field?: string } => ({
    ...(record.line !== undefined ? { line: record.line } : {}),
    ...(record.pointer !== undefined ? { pointer: record.pointer + path.map((p) => '/' + pointerToken(p)).join('') } : {}),
    ...(path.length > 0 ? { field: path.join('.') } : {}),
  });
  const add = (severity: 'error' | 'warning', path: Path, message: string): void => {
    if (severity === 'error') errors++;
    problems.push({ severity, file, ...where(path), kind, ...(externalId !== undefined ? { externalId } : {}), message });
  };
  const reporter = (path: Path): Reporter => ({
    error: (m) => add('error', path, m),
    warn: (m) => add('warning', path, m),
  });
  const source = { ...(record.line !== undefined ? { line: record.line } : {}), ...(record.pointer !== undefined ? { pointer: record.pointer } : {}) };
  const fail = (): NormalisedRecord => ({ valid: false, fields: {}, images: [], problems, source, ...(externalId !== undefined ? { externalId } : {}) });

  const obj = record.value;
  if (!isPlainObject(obj)) {
    add('error', [], `expected an offer (an object with external_id, ...), got ${typeName(obj)}`);
    return fail();
  }

  // Identity first, so that every later problem names it.
  const rawId = obj.external_id;
  if (typeof rawId === 'string' && rawId.trim() !== '') externalId = rawId.trim();
  else if (typeof rawId === 'number' && Number.isSafeInteger(rawId)) {
    externalId = String(rawId);
    add('warning', ['external_id'], `external_id should be a string: taken as '${externalId}'; put it in quotes`);
  } else {
    const got = rawId === undefined || rawId === null || rawId === '' ? 'it is missing' : `got ${typeName(rawId)}`;
    add('error', ['external_id'], `external_id is required: a non-empty string, unique among the ${kind} offers; ${got}`);
  }

  const out: Record<string, unknown> = {};
  const origin = new Map<string, string>();
  const images: ImagePathRef[] = [];
  const failed = new Set<string>();

  // Writes a value under its canonical name; two names for one field must agree.
  const assign = (target: string, value: unknown, fromPath: Path): void => {
    const dot = target.indexOf('.');
    const container = dot > 0 ? target.slice(0, dot) : undefined;
    const prev = origin.get(target);
    const existing = container ? (out[container] as Record<string, unknown> | undefined)?.[target.slice(dot + 1)] : out[target];
    if (prev !== undefined && existing !== undefined) {
      if (canonicalJson(existing) !== canonicalJson(value)) {
        add('error', fromPath, `'${fromPath.join('.')}' and '${prev}' both give ${target} and disagree (${canonicalJson(existing)} vs ${canonicalJson(value)}): keep one`);
        failed.add(target);
      }
      return;
    }
    origin.set(target, fromPath.join('.'));
    if (container) {
      const inner = (out[container] as Record<string, unknown> | undefined) ?? {};
      inner[target.slice(dot + 1)] = value;
      out[container] = inner;
    } else out[target] = value;
  };

  const normValue = (spec: FieldSpec, v: unknown, path: Path, target: string): void => {
    const r = reporter(path);
    const before = errors;
    switch (spec.type) {
      case 'string': {
        const s = normString(v, spec, r);
        if (s !== undefined) assign(target, s, path);
        break;
      }
      case 'int': {
        const n = normInt(v, spec, r);
        if (n !== undefined) assign(target, n, path);
        break;
      }
      case 'price': {
        const n = normPrice(v, r);
        if (n !== undefined) assign(target, n, path);
        break;
      }
      case 'bool': {
        const b = normBool(v, r);
        if (b !== undefined) assign(target, b, path);
        break;
      }
      case 'enum': {
        const e = normEnum(v, spec, r);
        if (e !== undefined) assign(target, e, path);
        break;
      }
      case 'rank': {
        const rank = normRank(v, r);
        if (rank === undefined) break;
        if (target.startsWith('parameters.')) assign(target, combinedRank(rank), path);
        else {
          assign(target, rank.rank, path);
          const divisionTarget = RANK_DIVISION[target];
          if (rank.division !== undefined && divisionTarget) assign(divisionTarget, rank.division, path);
        }
        break;
      }
      case 'division': {
        const d = normDivision(v, r);
        if (d !== undefined) assign(target, d, path);
        break;
      }
      case 'list':
      case 'urls': {
        const l = normList(v, r, spec.type === 'list');
        if (l !== undefined) assign(target, l, path);
        break;
      }
      case 'images': {
        const l = normList(v, r, false);
        if (l === undefined) break;
        const base = where(path).pointer;
        l.forEach((p, i) => images.push({ path: p, field: path.join('.'), ...(base !== undefined ? { pointer: `${base}/${i}` } : {}) }));
        break;
      }
      case 'image_ids': {
        const ids = normImageIds(v, r);
        if (ids !== undefined) assign(target, ids, path);
        break;
      }
      case 'parameters': {
        if (!isPlainObject(v)) {
          r.error(`expected an object of account details (level, rank, ...), got ${typeName(v)}`);
          break;
        }
        if (out.parameters === undefined) out.parameters = {};
        for (const [k, pv] of Object.entries(v)) {
          if (pv === null || pv === undefined) continue;
          const known = PARAMETER_FIELDS[k];
          if (known) normValue(known, pv, [...path, k], `parameters.${k}`);
          else assign(`parameters.${k}`, typeof pv === 'string' ? pv.trim() : pv, [...path, k]);
        }
        break;
      }
      case 'credentials': {
        if (!isPlainObject(v)) {
          r.error(`expected an object {login, password, email_login, email_password}, got ${typeName(v)}`);
          break;
        }
        for (const [k, cv] of Object.entries(v)) {
          if (cv === null || cv === undefined) continue;
          const known = CREDENTIAL_FIELDS[k];
          if (known) normValue(known, cv, [...path, k], `credentials.${k}`);
          else add('warning', [...path, k], unknownFieldMessage(k, Object.keys(CREDENTIAL_FIELDS), 'credentials field'));
        }
        break;
      }
      default:
        spec.type satisfies never;
    }
    if (errors > before) failed.add(target);
  };

  for (const key of Object.keys(obj)) {
    if (key === 'external_id' || key === '$schema') continue;
    const v = obj[key];
    const spec = table[key];
    if (!spec) {
      add('warning', [key], unknownFieldMessage(key, Object.keys(table)));
      continue;
    }
    if (v === null || v === undefined) continue;
    const target = spec.target ?? key;
    normValue(spec, v, [key], target);
    if (spec.legacy && !failed.has(target)) {
      add('warning', [key], `'${key}' is not a field of the API: it was moved to ${target}; write it there`);
    }
  }

  for (const [name, spec] of Object.entries(table)) {
    if (spec.required && name !== 'external_id' && out[name] === undefined && !failed.has(name)) {
      add('error', [name], `${name} is required: ${spec.description}`);
    }
  }
  if (record.error) add('error', [], record.error);

  if (externalId === undefined || errors > 0) return fail();
  const credentials = out.credentials as Record<string, string> | undefined;
  delete out.credentials;
  return { externalId, valid: true, fields: out, ...(credentials ? { credentials } : {}), images, problems, source };
}
