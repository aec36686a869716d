// Per-offer outcomes of a bulk call (POST /{kind}/bulk-update or bulk-remove), whose answer is not documented:
// read them where the body has an array of elements naming an external_id, else say nothing (outcomes undefined).
import { decodeInteger, decodeOffer, decodeString, isRecord } from './decode.ts';
import type { BulkUpdateResult, RemoteOffer, ResourceKind } from './marketplace-client.ts';

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

/** `{updated, removed, not_found, invalid}` at the top or under `data` / `meta`; undefined when none is a number. */
function countsOf(body: unknown): BulkUpdateResult['counts'] {
  const holders = isRecord(body) ? [body, body.data, body.meta].filter(isRecord) : [];
  for (const h of holders) {
    const updated = decodeInteger(h.updated ?? h.updated_count);
    const removed = decodeInteger(h.removed ?? h.removed_count ?? h.archived);
    const notFound = decodeInteger(h.not_found ?? h.notFound);
    const failed = decodeInteger(h.invalid ?? h.failed);
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

/** A top-up bulk-update's answer. */
export function decodeBulkUpdate(body: unknown): BulkUpdateResult {
  return decodeBulkAnswer('top-ups', body);
}

export function decodeBulkAnswer(kind: ResourceKind, body: unknown): BulkUpdateResult {
  const counts = countsOf(body);
  const withCounts = counts ? { counts } : {};
  const elements = elementsOf(body);
  if (!elements) return { body, ...withCounts };
  const outcomes = new Map<string, Outcome>();
  for (const e of elements) {
    if (!isRecord(e)) continue;
    const inner = isRecord(e.offer) ? e.offer : isRecord(e.data) ? e.data : undefined;
    const externalId = decodeString(e.external_id) ?? (inner ? decodeString(inner.external_id) : undefined);
    if (externalId !== undefined) outcomes.set(externalId, outcomeOf(kind, e));
  }
  return outcomes.size > 0 ? { body, ...withCounts, outcomes } : { body, ...withCounts };
}
