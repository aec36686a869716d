// An account's details beyond the ones the document names (parameters.*), passed on as written: a JSON value of
// bounded depth.
import type { JsonValue } from './desired-offer.ts';

/**
 * Unknown account details are passed on as written, and hashing walks them recursively: a value nested
 * thousands of levels deep (fuzzing found it) overflowed the stack and failed the whole catalogue load.
 */
export const MAX_DETAIL_NESTING = 32;

/** A raw object of a parsed file, before any check. */
export type RawObject = { readonly [key: string]: unknown };

export function isPlainObject(v: unknown): v is RawObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An account detail as written, as a JSON value; undefined when nested deeper than `limit` (or not JSON). */
export function detailValue(v: unknown, limit: number, own: (s: string) => string): JsonValue | undefined {
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
