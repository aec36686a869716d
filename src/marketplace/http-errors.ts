// Turns what came back (a non-2xx answer, or an exception from undici) into one typed MarketplaceError.
import { isForbiddenKey } from '../input/forbidden-keys.ts';
import {
  AbortedError,
  BadResponseError,
  ClientError,
  ConflictError,
  type ErrorContext,
  type FieldErrors,
  ForbiddenError,
  IdleTimeoutError,
  type MarketplaceError,
  MethodNotAllowedError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServerError,
  snippetOf,
  TimeoutError,
  UnauthenticatedError,
  ValidationError,
} from './marketplace-errors.ts';
import { scrubSecrets } from '../log/scrubber.ts';
import type { RateLimitAdvert } from './rate-limit-advert.ts';
import { retryAfterMs } from './retry-after.ts';

export interface Where {
  readonly method: string;
  readonly path: string;
  readonly query?: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The error object of section 7 (`{message}`), read liberally: `error` as a string or `{message}` too. */
function serverMessageOf(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  if (typeof body.message === 'string' && body.message !== '') return body.message;
  if (typeof body.error === 'string' && body.error !== '') return body.error;
  if (isRecord(body.error) && typeof body.error.message === 'string') return body.error.message;
  return undefined;
}

/**
 * What is shown of an uncaught database error (`{"errorInfo": [sqlstate, code, text]}`, as PHP's PDO gives it):
 * its text names the marketplace's tables and columns, which mean nothing to a seller and are not theirs to see,
 * so none of it is kept.
 */
export const DATABASE_ERROR_MESSAGE = 'the marketplace had a database error';

function isDatabaseError(body: unknown): boolean {
  return isRecord(body) && 'errorInfo' in body;
}

/** `{errors: {field: ["msg"] | "msg"}}`, scrubbed; anything else is left out. */
function fieldErrorsOf(body: unknown, secrets: readonly string[]): FieldErrors | undefined {
  if (!isRecord(body) || !isRecord(body.errors)) return undefined;
  const out: Record<string, readonly string[]> = {};
  for (const [field, v] of Object.entries(body.errors)) {
    if (isForbiddenKey(field)) continue; // names a prototype, not a field of the offer
    if (typeof v === 'string') out[field] = [scrubSecrets(v, secrets)];
    else if (Array.isArray(v))
      out[field] = v.filter((m): m is string => typeof m === 'string').map((m) => scrubSecrets(m, secrets));
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export function errorFromResponse(
  where: Where,
  status: number,
  headers: Readonly<Record<string, string | undefined>>,
  text: string,
  now: number,
  rateLimit?: RateLimitAdvert,
  secrets: readonly string[] = [],
): MarketplaceError {
  const body = parseJson(text);
  const serverMessage = isDatabaseError(body) ? DATABASE_ERROR_MESSAGE : serverMessageOf(body);
  const ctx: ErrorContext = {
    ...where,
    status,
    secrets,
    ...(serverMessage !== undefined
      ? { serverMessage }
      : text.trim() !== ''
        ? { bodySnippet: snippetOf(text, secrets) }
        : {}),
    // Without Retry-After, a quota that is spent says when it comes back.
    ...optional(
      'retryAfterMs',
      retryAfterMs(headers, now) ?? (rateLimit?.remaining === 0 ? rateLimit.resetMs : undefined),
    ),
    ...optional('rateLimit', rateLimit),
  };
  switch (status) {
    case 401:
      return new UnauthenticatedError(ctx);
    case 403:
      return new ForbiddenError(ctx);
    case 404:
      // An API 404 carries its error object; an HTML page from a proxy is not a definite "not there".
      return body === undefined && text.trim() !== ''
        ? new BadResponseError(ctx, "not found, but the answer is not the API's")
        : new NotFoundError(ctx);
    case 405:
      return new MethodNotAllowedError(ctx);
    case 409:
      return new ConflictError(ctx);
    case 413:
      return new PayloadTooLargeError(ctx);
    case 422:
      return new ValidationError(ctx, fieldErrorsOf(body, secrets));
    case 429:
      return new RateLimitedError(ctx);
    default:
      if (status >= 500) return new ServerError(ctx);
      if (status >= 400) return new ClientError(ctx);
      return new BadResponseError(ctx, 'unexpected status');
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function codeOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; isRecord(e) && depth < 4; e = e.cause, depth++) {
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}

/** Connection never made: nothing was sent, so even a create may be tried again blindly. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** Will not get better by trying again (a certificate the system does not trust). */
const PERMANENT = new RegExp(
  `^(${[
    'CERT_',
    'ERR_TLS_',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'UNABLE_TO_GET_ISSUER_CERT',
  ].join('|')})`,
);

export interface AbortState {
  /** Our own deadline fired. */
  readonly timedOut: boolean;
  /** The caller's signal fired. */
  readonly aborted: boolean;
}

export interface Deadlines {
  /** The whole request. */
  readonly timeoutMs: number;
  /** No byte of the body for this long. */
  readonly idleTimeoutMs: number;
}

export function errorFromException(
  where: Where,
  err: unknown,
  abort: AbortState,
  deadlines: Deadlines,
): MarketplaceError {
  const ctx: ErrorContext = { ...where, cause: err };
  const code = codeOf(err);
  if (abort.timedOut || code === 'UND_ERR_HEADERS_TIMEOUT') return new TimeoutError(ctx, deadlines.timeoutMs);
  if (code === 'UND_ERR_BODY_TIMEOUT') return new IdleTimeoutError(ctx, deadlines.idleTimeoutMs);
  if (abort.aborted) return new AbortedError(ctx);
  if (code === 'UND_ERR_CONNECT_TIMEOUT')
    return new NetworkError(ctx, 'connect timeout', { maybeSent: false, retryable: true });
  const detail = code ?? (err instanceof Error ? err.message : String(err));
  if (code !== undefined && PERMANENT.test(code))
    return new NetworkError(ctx, detail, { maybeSent: false, retryable: false });
  return new NetworkError(ctx, detail, { maybeSent: code === undefined || !NOT_SENT.has(code), retryable: true });
}
