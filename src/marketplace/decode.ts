// Tolerant decoding (docs/architecture.md, Decoding), pure: liberal about representation (bare or `data`-wrapped,
// numeric strings, ISO / epoch / SQL timestamps, `{slug, name}` where a string is documented), strict about
// shape: a body that is not the object asked for is a DecodeError, which callers turn into a BadResponse.
import { forbiddenKeyPaths } from '../input/forbidden-keys.ts';
import { BadResponseError } from './marketplace-errors.ts';
import type { HttpResponse } from './http.ts';
import { hasMappedRanks, ranksFromParameters, sellerParameters } from './account-parameters.ts';
import type {
  CredentialsSeal,
  LoginFingerprint,
  RemoteImage,
  RemoteOffer,
  ResourceKind,
} from './marketplace-client.ts';
import { type ApiFieldType, FIELD_ALIASES, OFFER_FIELDS } from './api-field-types.ts';

export class DecodeError extends Error {
  override readonly name = 'DecodeError';
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const INTEGER = /^\s*-?\d+\s*$/;

/** An integer, or a numeric string of one. undefined for anything else. */
export function decodeInteger(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v === 'string' && INTEGER.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** Above this an epoch number is in milliseconds, below in seconds (1e12 ms is September 2001). */
const EPOCH_MS_FLOOR = 1e12;
const NUMERIC = /^\s*-?\d+(\.\d+)?\s*$/;

/** A finite number, or a numeric string of one (`"12.50"` is 12.5). undefined for anything else. */
export function decodeNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && NUMERIC.test(v)) return Number(v);
  return undefined;
}
/** ISO 8601 or `YYYY-MM-DD HH:MM:SS` without a zone: read as UTC, whatever the local zone is. */
const ZONELESS = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;

/** Epoch ms from ISO 8601, epoch seconds (ms above 1e12) or `YYYY-MM-DD HH:MM:SS` (UTC). */
export function decodeTimestamp(v: unknown): number | undefined {
  if (typeof v === 'number' || (typeof v === 'string' && NUMERIC.test(v))) {
    const n = Number(v);
    if (!Number.isFinite(n)) return undefined;
    return Math.round(Math.abs(n) >= EPOCH_MS_FLOOR ? n : n * 1000);
  }
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  const zoneless = ZONELESS.exec(s);
  const t = Date.parse(zoneless ? `${zoneless[1]}T${zoneless[2]}Z` : s);
  return Number.isNaN(t) ? undefined : t;
}

/** A string; a number as its decimal form; an object (`game: {slug, name}`) as its slug, else its name. */
export function decodeString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (isRecord(v)) {
    if (typeof v.slug === 'string') return v.slug;
    if (typeof v.name === 'string') return v.name;
  }
  return undefined;
}

export function decodeBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === '1' || v === 'true') return true;
  if (v === 0 || v === '0' || v === 'false') return false;
  return undefined;
}

function decodeIntegerElement(v: unknown): unknown {
  if (isRecord(v)) return decodeInteger(v.id) ?? decodeInteger(v.image_id) ?? v;
  return decodeInteger(v) ?? v;
}

/**
 * One echoed field, by the type the document gives it. A value that does not convert is kept as sent:
 * the planner then sees a difference and learns the field is lossy, instead of the value vanishing.
 */
export function decodeField(type: ApiFieldType, v: unknown): unknown {
  if (v === null) return null;
  switch (type) {
    case 'string':
      return decodeString(v) ?? v;
    case 'integer':
      return decodeInteger(v) ?? v;
    case 'number':
      return decodeNumber(v) ?? v;
    case 'boolean':
      return decodeBoolean(v) ?? v;
    case 'stringOrInteger':
      return isRecord(v) ? (decodeString(v) ?? v) : v;
    case 'integerArray':
      if (Array.isArray(v)) return v.map(decodeIntegerElement);
      if (typeof v === 'string' && /^\s*\d+(\s*,\s*\d+)*\s*$/.test(v)) return v.split(',').map((x) => Number(x.trim()));
      return v;
    case 'stringArray':
      return Array.isArray(v) ? v.map((x) => decodeString(x) ?? x) : v;
    case 'stringOrStringArray':
      return Array.isArray(v) ? v.map((x) => decodeString(x) ?? x) : (decodeString(v) ?? v);
    case 'object':
      if (typeof v === 'string') {
        // Some servers hand back a JSON column as its text.
        try {
          const parsed = JSON.parse(v) as unknown;
          if (isRecord(parsed) && forbiddenKeyPaths(parsed).length === 0) return parsed;
        } catch {
          /* not JSON: kept as sent */
        }
      }
      return v;
    default:
      return type satisfies never;
  }
}

/** A single object, bare or wrapped in `data`. */
export function unwrapSingle(body: unknown): Record<string, unknown> {
  if (!isRecord(body))
    throw new DecodeError(
      body === undefined ? 'empty answer where an object was expected' : 'answer is not a JSON object',
    );
  if (body.id === undefined && isRecord(body.data)) return body.data;
  return body;
}

function decodeExternalId(v: unknown): string | undefined {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return undefined;
}

/**
 * An offer object (already unwrapped). Without an integer id or an external_id it is not an offer.
 * `allowNoExternalId` is for lists, where an offer made by hand on the website may have none: then undefined.
 */
export function decodeOffer(
  kind: ResourceKind,
  o: Record<string, unknown>,
  allowNoExternalId?: false,
  opts?: DecodeOptions,
): RemoteOffer;
export function decodeOffer(
  kind: ResourceKind,
  o: Record<string, unknown>,
  allowNoExternalId: true,
  opts?: DecodeOptions,
): RemoteOffer | undefined;
export function decodeOffer(
  kind: ResourceKind,
  o: Record<string, unknown>,
  allowNoExternalId = false,
  opts: DecodeOptions = {},
): RemoteOffer | undefined {
  const id = decodeInteger(o.id);
  if (id === undefined) throw new DecodeError(`${kind} object without an integer id`);
  const externalId = decodeExternalId(o.external_id);
  if (externalId === undefined) {
    if (allowNoExternalId && (o.external_id === undefined || o.external_id === null || o.external_id === ''))
      return undefined;
    throw new DecodeError(`${kind} object ${id} without an external_id`);
  }
  const fields: Record<string, unknown> = {};
  for (const [name, type] of FIELD_LISTS[kind]) {
    if (Object.hasOwn(o, name) && o[name] !== undefined) fields[name] = decodeField(type, o[name]);
  }
  for (const [alias, name, type] of ALIAS_LISTS[kind]) {
    if (fields[name] === undefined && Object.hasOwn(o, alias) && o[alias] !== undefined)
      fields[name] = decodeField(type, o[alias]);
  }
  const { sealed, fingerprint } = kind === 'accounts' ? decodeAccountExtras(o, fields, opts) : {};
  const status = decodeString(o.status);
  const createdAt = decodeTimestamp(o.created_at);
  const updatedAt = decodeTimestamp(o.updated_at);
  const soldAt = o.sold_at === null ? null : decodeTimestamp(o.sold_at);
  // Accounts sell whole (status sold); items and top-ups sell units, counted by the marketplace.
  const sold = kind === 'accounts' ? undefined : decodeInteger(o.sold_count);
  const soldCount = sold !== undefined && sold >= 0 ? sold : undefined;
  // Set one by one in this order, not spread from small objects: every write's answer is decoded here.
  const offer = { id, externalId } as Mutable<RemoteOffer>;
  if (status !== undefined) offer.status = status;
  if (createdAt !== undefined) offer.createdAt = createdAt;
  if (updatedAt !== undefined) offer.updatedAt = updatedAt;
  if (soldAt !== undefined) offer.soldAt = soldAt;
  if (soldCount !== undefined) offer.soldCount = soldCount;
  offer.fields = fields;
  if (sealed !== undefined) offer.credentialsHmac = sealed;
  if (fingerprint !== undefined) offer.loginFingerprint = fingerprint;
  return offer;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Each kind's fields and aliases as lists, made once: a decode walks them without building them again. */
const FIELD_LISTS = mapKinds((kind) => Object.entries(OFFER_FIELDS[kind]));
const ALIAS_LISTS = mapKinds((kind) =>
  Object.entries(FIELD_ALIASES[kind]).flatMap(([alias, name]) => {
    const type = OFFER_FIELDS[kind][name];
    return type === undefined ? [] : [[alias, name, type] as const];
  }),
);

function mapKinds<T>(f: (kind: ResourceKind) => T): Readonly<Record<ResourceKind, T>> {
  return { accounts: f('accounts'), items: f('items'), 'top-ups': f('top-ups') };
}

export interface DecodeOptions {
  /** Seals the credentials an account answer carries; without it they are dropped unseen. */
  readonly sealCredentials?: CredentialsSeal;
  /** Gives the login fingerprint of the credentials an account answer carries; the login is dropped unkept. */
  readonly fingerprintLogin?: LoginFingerprint;
}

/**
 * What a server that keeps to its own shape returns of an account beside the document's fields: ranks mapped into
 * `parameters` (read back as the flat fields), `riot_points` for game_points, and credentials, sealed. Returns
 * the seal of the credentials and the login's fingerprint, where there are such.
 */
function decodeAccountExtras(
  o: Record<string, unknown>,
  fields: Record<string, unknown>,
  opts: DecodeOptions,
): { readonly sealed?: string; readonly fingerprint?: string } {
  const params = fields.parameters;
  if (isRecord(params) && hasMappedRanks(params)) {
    for (const [k, v] of Object.entries(ranksFromParameters(params))) if (!Object.hasOwn(fields, k)) fields[k] = v;
    fields.parameters = sellerParameters(params);
  }
  if (!Object.hasOwn(fields, 'game_points') && o.riot_points != null)
    fields.game_points = decodeField('integer', o.riot_points);
  const credentials = o.credentials;
  if ((!opts.sealCredentials && !opts.fingerprintLogin) || !isRecord(credentials)) return {};
  const given: Record<string, string> = {};
  for (const [k, v] of Object.entries(credentials)) if (typeof v === 'string' && v !== '') given[k] = v;
  if (Object.keys(given).length === 0) return {};
  const sealed = opts.sealCredentials?.(given);
  const fingerprint = opts.fingerprintLogin?.(given);
  return { ...(sealed !== undefined ? { sealed } : {}), ...(fingerprint !== undefined ? { fingerprint } : {}) };
}

/** An image object (already unwrapped); `id`, else `image_id`. */
export function decodeImage(o: Record<string, unknown>): RemoteImage {
  const id = decodeInteger(o.id) ?? decodeInteger(o.image_id);
  if (id === undefined) throw new DecodeError('image object without an integer id');
  const url = decodeString(o.url);
  const filename = decodeString(o.filename);
  const mimeType = decodeString(o.mime_type);
  const originalName = decodeString(o.original_name);
  const sizeBytes = decodeInteger(o.size_bytes);
  const createdAt = decodeInteger(o.created_at);
  return {
    id,
    ...(url !== undefined ? { url } : {}),
    ...(filename !== undefined ? { filename } : {}),
    ...(mimeType !== undefined ? { mimeType } : {}),
    ...(originalName !== undefined ? { originalName } : {}),
    ...(sizeBytes !== undefined ? { sizeBytes } : {}),
    ...(createdAt !== undefined ? { createdAt } : {}),
  };
}

export interface ListBody {
  readonly data: readonly unknown[];
  readonly currentPage?: number;
  readonly lastPage?: number;
  readonly perPage?: number;
  /** links.next: a string to follow, null when the server says there is none, undefined when it does not say. */
  readonly next?: string | null;
}

/** `{data: [...], meta, links}`, or a bare array. */
export function decodeListBody(body: unknown): ListBody {
  if (Array.isArray(body)) return { data: body };
  if (!isRecord(body)) throw new DecodeError('list answer is not a JSON object');
  const inner = isRecord(body.data) && Array.isArray(body.data.data) ? body.data : body; // data wrapped twice
  if (!Array.isArray(inner.data)) throw new DecodeError('list answer without a data array');
  const meta = isRecord(inner.meta) ? inner.meta : inner; // some servers put paging fields at the top level
  const links = isRecord(inner.links) ? inner.links : undefined;
  const currentPage = decodeInteger(meta.current_page);
  const lastPage = decodeInteger(meta.last_page);
  const perPage = decodeInteger(meta.per_page);
  let next: string | null | undefined;
  if (links && Object.hasOwn(links, 'next'))
    next = typeof links.next === 'string' && links.next !== '' ? links.next : null;
  else if (typeof inner.next_page_url === 'string' || inner.next_page_url === null) next = inner.next_page_url || null;
  return {
    data: inner.data,
    ...(currentPage !== undefined ? { currentPage } : {}),
    ...(lastPage !== undefined ? { lastPage } : {}),
    ...(perPage !== undefined ? { perPage } : {}),
    ...(next !== undefined ? { next } : {}),
  };
}

/** Runs a decoder on a 2xx answer; a DecodeError becomes a BadResponse carrying the status and first bytes. */
export function decodeResponse<T>(res: HttpResponse, decode: (body: unknown) => T): T {
  try {
    return decode(res.body);
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    throw new BadResponseError({ ...res.where, status: res.status, bodySnippet: res.snippet, cause: err }, err.message);
  }
}
