// What can go wrong talking to the marketplace, as types. The request queue reads the duck-typed fields
// (retryable, rateLimited, retryAfterMs, outcomeUnknown), the executor reads status and outcomeUnknown.
// Messages name the method, the path and the server's message, and pass through scrubSecrets: never the key.
import { scrubSecrets } from '../log/scrubber.ts';
import type { RateLimitAdvert } from './rate-limit-advert.ts';

export interface ErrorContext {
  readonly method: string;
  /** Path without query, identifiers as sent. */
  readonly path: string;
  /** Query string without '?', for the message only (a page number or filter helps the reader). */
  readonly query?: string;
  readonly status?: number;
  readonly serverMessage?: string;
  /** First bytes of a body that could not be read as what was expected. */
  readonly bodySnippet?: string;
  readonly retryAfterMs?: number;
  /** What the answer said about the rate limit (the queue paces on it). */
  readonly rateLimit?: RateLimitAdvert;
  readonly cause?: unknown;
  /**
   * What the request carried that must never be shown (an account's credentials): a marketplace may quote a
   * refused body in its answer. Scrubbed from every text of the error, never kept on it.
   */
  readonly secrets?: readonly string[];
}

interface Flags {
  readonly retryable: boolean;
  readonly outcomeUnknown: boolean;
  readonly rateLimited?: boolean;
}

/** A method that can change something on the server. */
export function isWrite(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}

const SNIPPET_BYTES = 200;

/** Scrubbed before the cut, so that a secret the cut would halve is blanked whole; the rest is never read. */
const SCRUBBED_PREFIX_CHARS = 8192;

/** The first ~200 bytes of a body, scrubbed, for an error a human will read. */
export function snippetOf(text: string, secrets: readonly string[] = []): string {
  if (Buffer.byteLength(text) <= SNIPPET_BYTES) return scrubSecrets(text, secrets);
  const scrubbed = scrubSecrets(text.slice(0, SCRUBBED_PREFIX_CHARS), secrets);
  return `${Buffer.from(scrubbed).subarray(0, SNIPPET_BYTES).toString('utf8')}...`;
}

export class MarketplaceError extends Error {
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly serverMessage?: string;
  readonly bodySnippet?: string;
  readonly retryAfterMs?: number;
  readonly rateLimit?: RateLimitAdvert;
  readonly retryable: boolean;
  readonly rateLimited: boolean;
  /** True when a write may have happened although it failed: look before sending it again. */
  readonly outcomeUnknown: boolean;

  constructor(what: string, ctx: ErrorContext, flags: Flags) {
    const where = `${ctx.method} ${ctx.path}${ctx.query ? `?${ctx.query}` : ''}`;
    const status = ctx.status !== undefined ? ` ${ctx.status}` : '';
    const server = ctx.serverMessage
      ? `: ${ctx.serverMessage}`
      : ctx.bodySnippet
        ? `; body starts: ${ctx.bodySnippet}`
        : '';
    super(
      scrubSecrets(`${where}:${status} ${what}${server}`, ctx.secrets),
      ctx.cause !== undefined ? { cause: ctx.cause } : undefined,
    );
    this.name = new.target.name;
    this.method = ctx.method;
    this.path = ctx.path;
    if (ctx.status !== undefined) this.status = ctx.status;
    if (ctx.serverMessage !== undefined) this.serverMessage = scrubSecrets(ctx.serverMessage, ctx.secrets);
    if (ctx.bodySnippet !== undefined) this.bodySnippet = scrubSecrets(ctx.bodySnippet, ctx.secrets);
    if (ctx.retryAfterMs !== undefined) this.retryAfterMs = ctx.retryAfterMs;
    if (ctx.rateLimit !== undefined) this.rateLimit = ctx.rateLimit;
    this.retryable = flags.retryable;
    this.rateLimited = flags.rateLimited ?? false;
    this.outcomeUnknown = flags.outcomeUnknown;
  }
}

const definite: Flags = { retryable: false, outcomeUnknown: false };

export class UnauthenticatedError extends MarketplaceError {
  constructor(ctx: ErrorContext) {
    super('unauthenticated (check the API key)', ctx, definite);
  }
}

export class ForbiddenError extends MarketplaceError {
  constructor(ctx: ErrorContext) {
    super('forbidden', ctx, definite);
  }
}

export class NotFoundError extends MarketplaceError {
  constructor(ctx: ErrorContext, what = 'not found') {
    super(what, ctx, definite);
  }
}

export class MethodNotAllowedError extends MarketplaceError {
  constructor(ctx: ErrorContext) {
    super('method not allowed', ctx, definite);
  }
}

export class ConflictError extends MarketplaceError {
  constructor(ctx: ErrorContext) {
    super('conflict', ctx, definite);
  }
}

export class PayloadTooLargeError extends MarketplaceError {
  constructor(ctx: ErrorContext) {
    super('payload too large', ctx, definite);
  }
}

/** Per-field messages, as the server gave them (`{errors: {title: ["..."]}}`). */
export type FieldErrors = Readonly<Record<string, readonly string[]>>;

export class ValidationError extends MarketplaceError {
  readonly errors?: FieldErrors;
  constructor(ctx: ErrorContext, errors?: FieldErrors) {
    const fields = errors ? Object.keys(errors) : [];
    super(`validation failed${fields.length > 0 ? ` (fields: ${fields.join(', ')})` : ''}`, ctx, definite);
    if (errors) this.errors = errors;
  }
}

export class RateLimitedError extends MarketplaceError {
  constructor(ctx: ErrorContext) {
    const wait = ctx.retryAfterMs !== undefined ? ` (retry after ${ctx.retryAfterMs} ms)` : '';
    super(`rate limited${wait}`, ctx, { retryable: true, outcomeUnknown: false, rateLimited: true });
  }
}

export class ServerError extends MarketplaceError {
  constructor(ctx: ErrorContext) {
    // 501 says the route is not implemented: nothing happened, and asking again will not help.
    const notImplemented = ctx.status === 501;
    super('server error', ctx, { retryable: !notImplemented, outcomeUnknown: !notImplemented && isWrite(ctx.method) });
  }
}

/** Any other 4xx (408 Request Timeout is retryable: the server gave up before reading the request). */
export class ClientError extends MarketplaceError {
  constructor(ctx: ErrorContext) {
    super('request refused', ctx, { retryable: ctx.status === 408, outcomeUnknown: false });
  }
}

export class TimeoutError extends MarketplaceError {
  constructor(ctx: ErrorContext, timeoutMs: number, what = `no complete answer within ${timeoutMs} ms`) {
    super(what, ctx, { retryable: true, outcomeUnknown: isWrite(ctx.method) });
  }
}

/** The answer began, then no byte came for `idleMs`: a stalled server or connection. */
export class IdleTimeoutError extends TimeoutError {
  constructor(ctx: ErrorContext, idleMs: number) {
    super(ctx, idleMs, `the answer stalled: no byte for ${idleMs} ms (http.idleTimeoutMs)`);
  }
}

/**
 * An answer larger than its route's cap: reading stopped there and the connection was closed, so one endless
 * or huge answer cannot take the process's memory. Not retried: the same request would get the same answer.
 */
export class ResponseTooLargeError extends MarketplaceError {
  readonly capBytes: number;
  /** The configuration key that sets the cap. */
  readonly setting: string;
  /** Bytes of the body read before giving up (0 when its Content-Length already said too much). */
  readonly readBytes: number;
  constructor(ctx: ErrorContext, cap: { readonly bytes: number; readonly setting: string; readonly read: number }) {
    super(
      `answer larger than the cap of ${cap.bytes} bytes (${cap.setting}): stopped reading after ${cap.read} ` +
        `bytes and closed the connection. If the marketplace really sends answers this large, raise ${cap.setting}`,
      ctx,
      { retryable: false, outcomeUnknown: isWrite(ctx.method) },
    );
    this.capBytes = cap.bytes;
    this.setting = cap.setting;
    this.readBytes = cap.read;
  }
}

export class NetworkError extends MarketplaceError {
  /** maybeSent: false when the connection was never made (refused, DNS), so nothing can have happened. */
  constructor(ctx: ErrorContext, detail: string, flags: { maybeSent: boolean; retryable: boolean }) {
    super(`network error (${detail})`, ctx, {
      retryable: flags.retryable,
      outcomeUnknown: flags.maybeSent && isWrite(ctx.method),
    });
  }
}

/** The caller's AbortSignal fired: not retried, and a write may or may not have been made. */
export class AbortedError extends MarketplaceError {
  constructor(ctx: ErrorContext) {
    super('aborted by the caller', ctx, { retryable: false, outcomeUnknown: isWrite(ctx.method) });
  }
}

/**
 * The answer was not what was asked for: not JSON (an HTML page, even with 200), truncated JSON, JSON of
 * the wrong shape, or an unexpected status. Never a success and never a "not found".
 */
export class BadResponseError extends MarketplaceError {
  constructor(ctx: ErrorContext, what = 'unreadable answer') {
    super(what, ctx, { retryable: false, outcomeUnknown: isWrite(ctx.method) });
  }
}

/** A list walk that would not end (a page repeated, or the page cap was reached). */
export class PaginationError extends BadResponseError {}
