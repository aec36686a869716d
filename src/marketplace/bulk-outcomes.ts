// Per-offer outcomes of a bulk call (POST /{kind}/bulk-update or bulk-remove), whose answer is not documented:
// read them where the body has an array of elements naming an offer (`results`, `data`, `offers`), or the real
// server's lists (`data.updated[]` and `data.archived[]` of rows as stored, `not_found`), else say nothing.
import { decodeInteger, decodeOffer, decodeString, isRecord } from './decode.ts';
import type { BulkRow, BulkUpdateResult, RemoteOffer, ResourceKind } from './marketplace-client.ts';

type Outcome = { readonly ok: boolean; readonly message?: string; readonly offer?: RemoteOffer };

const FAILED = new Set([
  'error',
  'failed',
  'fail',
  'failure',
  'rejected',
  'invalid',
  'not_found',
  'notfound',
  'missing',
]);
const SUCCEEDED = new Set(['ok', 'success', 'succeeded', 'updated', 'done', 'saved', 'unchanged', 'removed']);
const ARRAY_KEYS = ['results', 'data', 'offers'] as const;

function elementsOf(body: unknown): readonly unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (!isRecord(body)) return undefined;
  for (const key of ARRAY_KEYS) {
    const v = body[key];
    if (Array.isArray(v)) return v;
    if (isRecord(v)) for (const inner of ARRAY_KEYS) if (Array.isArray(v[inner])) return v[inner] as unknown[];
  }
  return undefined;
}

function messageOf(e: Record<string, unknown>): string | undefined {
  if (typeof e.error === 'string') return e.error;
  if (isRecord(e.error) && typeof e.error.message === 'string') return e.error.message;
  if (typeof e.message === 'string') return e.message;
  if (isRecord(e.errors))
    return Object.entries(e.errors)
      .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(' ') : String(v)}`)
      .join('; ');
  return undefined;
}

/** The offer echoed with an outcome: nested under offer/data, or the element itself when its status is the offer's. */
function offerOf(kind: ResourceKind, e: Record<string, unknown>, statusIsOutcome: boolean): RemoteOffer | undefined {
  const candidate = isRecord(e.offer) ? e.offer : isRecord(e.data) ? e.data : statusIsOutcome ? undefined : e;
  if (!candidate) return undefined;
  try {
    const offer = decodeOffer(kind, candidate);
    // `{external_id, id, success}` is an outcome, not an offer: the element itself counts only if it echoes fields.
    return candidate !== e || Object.keys(offer.fields).length > 0 ? offer : undefined;
  } catch {
    return undefined; // an outcome without the offer is still an outcome
  }
}

function outcomeOf(kind: ResourceKind, e: Record<string, unknown>): Outcome {
  const status = decodeString(e.status)?.toLowerCase();
  const statusIsOutcome =
    typeof e.status === 'number' || (status !== undefined && (FAILED.has(status) || SUCCEEDED.has(status)));
  const withMessage = (ok: boolean): Outcome => {
    const offer = ok ? offerOf(kind, e, statusIsOutcome) : undefined;
    // A failure without words still says which: "not_found".
    const message = messageOf(e) ?? (!ok && status !== undefined ? status : undefined);
    return { ok, ...(message !== undefined ? { message } : {}), ...(offer ? { offer } : {}) };
  };
  if (typeof e.success === 'boolean') return withMessage(e.success);
  if (typeof e.ok === 'boolean') return withMessage(e.ok);
  if ((e.error !== undefined && e.error !== null && e.error !== false && e.error !== '') || isRecord(e.errors))
    return withMessage(false);
  if (typeof e.status === 'number') return withMessage(e.status >= 200 && e.status < 300);
  // A string status may be an outcome ("failed") or the offer's own status ("listed"): only failure words fail.
  return withMessage(!(status !== undefined && FAILED.has(status)));
}

/** The first of `values` that is an integer (an array under `updated` is a list of rows, not a count). */
const firstInteger = (...values: unknown[]): number | undefined => {
  for (const v of values) {
    const n = decodeInteger(v);
    if (n !== undefined) return n;
  }
  return undefined;
};

/** `{updated, removed, not_found, invalid}` (or `*_count`) at the top or under `data` / `meta`; undefined when none. */
function countsOf(body: unknown): BulkUpdateResult['counts'] {
  const holders = isRecord(body) ? [body, body.data, body.meta].filter(isRecord) : [];
  for (const h of holders) {
    const updated = firstInteger(h.updated, h.updated_count);
    const removed = firstInteger(h.removed, h.removed_count, h.archived, h.archived_count);
    const notFound = firstInteger(h.not_found, h.notFound, h.not_found_count);
    const failed = firstInteger(h.invalid, h.failed);
    if (updated === undefined && removed === undefined && notFound === undefined && failed === undefined) continue;
    return {
      ...(updated !== undefined ? { updated } : {}),
      ...(removed !== undefined ? { removed } : {}),
      ...(notFound !== undefined ? { notFound } : {}),
      ...(failed !== undefined ? { failed } : {}),
    };
  }
  return undefined;
}

/** An offer named in a list of the real answer: a row (an object), an id (a number), or an external_id (a string). */
function namedRow(kind: ResourceKind, v: unknown, ok: boolean, message?: string): BulkRow | undefined {
  const outcome = { ok, ...(message !== undefined ? { message } : {}) };
  if (typeof v === 'number') return Number.isSafeInteger(v) ? { id: v, ...outcome } : undefined;
  if (typeof v === 'string') return v === '' ? undefined : { externalId: v, ...outcome };
  if (!isRecord(v)) return undefined;
  const id = decodeInteger(v.id);
  const externalId = decodeString(v.external_id);
  let offer: RemoteOffer | undefined;
  if (ok)
    try {
      offer = decodeOffer(kind, v);
    } catch {
      offer = undefined; // a row without an external_id still names its id
    }
  if (id === undefined && externalId === undefined) return undefined;
  return {
    ...(id !== undefined ? { id } : {}),
    ...(externalId !== undefined ? { externalId } : {}),
    ...outcome,
    ...(offer ? { offer } : {}),
  };
}

/**
 * The real server's lists: `updated[]` or `archived[]` done, `already_sold[]` and `not_found` (an array, or
 * `{external_ids[], ids[]}` and the like) not done. undefined when the answer has none of them.
 */
function realRowsOf(kind: ResourceKind, body: unknown): BulkRow[] | undefined {
  const holder = isRecord(body) ? (isRecord(body.data) ? body.data : body) : undefined;
  if (!holder) return undefined;
  const done = [holder.updated, holder.archived].filter(Array.isArray);
  const notFound = holder.not_found;
  const sold = holder.already_sold;
  if (done.length === 0 && !Array.isArray(notFound) && !isRecord(notFound) && !Array.isArray(sold)) return undefined;
  const rows: BulkRow[] = [];
  const add = (list: unknown, ok: boolean, message?: string) => {
    if (Array.isArray(list))
      for (const v of list) {
        const row = namedRow(kind, v, ok, message);
        if (row) rows.push(row);
      }
  };
  for (const list of done) add(list, true);
  add(sold, false, 'already sold');
  if (isRecord(notFound)) for (const list of Object.values(notFound)) add(list, false, 'not_found');
  else add(notFound, false, 'not_found');
  return rows;
}

/** A top-up bulk-update's answer. */
export function decodeBulkUpdate(body: unknown): BulkUpdateResult {
  return decodeBulkAnswer('top-ups', body);
}

export function decodeBulkAnswer(kind: ResourceKind, body: unknown): BulkUpdateResult {
  const counts = countsOf(body);
  const withCounts = counts ? { counts } : {};
  const elements = elementsOf(body);
  const rows: BulkRow[] = realRowsOf(kind, body) ?? [];
  for (const e of elements ?? []) {
    if (!isRecord(e)) continue;
    const inner = isRecord(e.offer) ? e.offer : isRecord(e.data) ? e.data : undefined;
    const externalId = decodeString(e.external_id) ?? (inner ? decodeString(inner.external_id) : undefined);
    const id = decodeInteger(e.id) ?? (inner ? decodeInteger(inner.id) : undefined);
    if (externalId === undefined && id === undefined) continue;
    rows.push({
      ...(id !== undefined ? { id } : {}),
      ...(externalId !== undefined ? { externalId } : {}),
      ...outcomeOf(kind, e),
    });
  }
  if (rows.length === 0) return { body, ...withCounts };
  const outcomes = new Map<string, Outcome>();
  for (const { id: _id, externalId, ...outcome } of rows)
    if (externalId !== undefined) outcomes.set(externalId, outcome);
  return { body, ...withCounts, rows, ...(outcomes.size > 0 ? { outcomes } : {}) };
}
