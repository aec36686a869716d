// The top-level shapes of a JSON or YAML catalogue file: one offer, a list of offers, or {kind?, offers: [...]}.
import { forbiddenKeyMessage, isForbiddenKey } from '../../input/forbidden-keys.ts';
import type { OfferKind } from '../desired-offer.ts';
import { parseKindName } from '../layout.ts';
import { unknownFieldMessage } from '../suggest.ts';
import type { TextPosition } from '../text-position.ts';
import { isPlainObject, pointerOf, type ParseProblem, type PathInRecord, type RawRecord } from './parsed-file.ts';

const WRAPPER_KEYS = ['kind', 'offers', '$schema'];

export /** Splits a top-level value into records: array, {kind, offers}, or one offer. */
function recordsOf(
  value: unknown,
  out: { records: RawRecord[]; problems: ParseProblem[] },
  positionOf?: (path: PathInRecord) => TextPosition | undefined,
  doc?: number,
): { kind?: OfferKind; unreadable: boolean; explicitlyEmpty?: true } {
  const at = (path: PathInRecord): { pointer: string; line?: number; column?: number } => {
    const p = positionOf?.(path);
    return { pointer: pointerOf('', path), ...(p ? { line: p.line, column: p.column } : {}) };
  };
  const record = (value: unknown, path: PathInRecord): RawRecord => {
    const p = positionOf?.(path);
    return {
      value,
      pointer: pointerOf('', path),
      ...(p ? { line: p.line } : {}),
      // YAML (a document index): yaml's scalars are slices of the text.
      ...(doc !== undefined ? { doc, fromText: true as const } : {}),
    };
  };
  if (value === null || value === undefined) return { unreadable: false };
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) out.records.push(record(v, [i]));
    return value.length === 0 ? { unreadable: false, explicitlyEmpty: true } : { unreadable: false };
  }
  if (!isPlainObject(value)) {
    out.problems.push({
      severity: 'error',
      message: 'expected an offer (an object), a list of offers, or {offers: [...]}',
      pointer: '',
    });
    return { unreadable: true };
  }
  if (!('offers' in value)) {
    out.records.push(record(value, []));
    return { unreadable: false };
  }
  let kind: OfferKind | undefined;
  let unreadable = false;
  for (const key of Object.keys(value)) {
    if (isForbiddenKey(key)) {
      out.problems.push({ severity: 'error', message: forbiddenKeyMessage(key, 'key'), ...at([key]), field: key });
      unreadable = true;
    } else if (!WRAPPER_KEYS.includes(key)) {
      out.problems.push({
        severity: 'warning',
        message: `${unknownFieldMessage(key, WRAPPER_KEYS, 'key')}: a file of the form {kind, offers} holds only those`,
        ...at([key]),
        field: key,
      });
    }
  }
  if (value.kind !== undefined) {
    kind = parseKindName(value.kind);
    if (!kind) {
      out.problems.push({
        severity: 'error',
        message: `kind must be one of account, item, topup, got ${JSON.stringify(value.kind)}`,
        ...at(['kind']),
        field: 'kind',
      });
      unreadable = true;
    }
  }
  const offers = value.offers;
  if (Array.isArray(offers)) for (const [i, v] of offers.entries()) out.records.push(record(v, ['offers', i]));
  else if (offers !== null) {
    out.problems.push({
      severity: 'error',
      message: 'offers must be a list of offers',
      ...at(['offers']),
      field: 'offers',
    });
    unreadable = true;
  }
  const explicitlyEmpty = Array.isArray(offers) && offers.length === 0;
  return { ...(kind ? { kind } : {}), unreadable, ...(explicitlyEmpty ? { explicitlyEmpty: true as const } : {}) };
}
