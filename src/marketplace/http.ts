// The transport: one keep-alive undici Pool, every request through the scheduler, a deadline per request
// (body included), an idle timeout, a size cap per answer, and every non-2xx or unreadable answer turned into a
// typed error inside `send` (so the queue sees it).
import type { FormData } from 'undici';
import type { Logger } from '../log/logger.ts';
import { forbiddenKeyPaths, textMayHoldForbiddenKey } from '../input/forbidden-keys.ts';
import { DeadlineError, dispatchCapped } from './capped-dispatch.ts';
import { Pool } from './undici-pool.ts';
import { BadResponseError, ResponseTooLargeError, snippetOf } from './marketplace-errors.ts';
import { errorFromException, errorFromResponse, type Where } from './http-errors.ts';
import { type RateLimitAdvert, readRateLimitAdvert } from './rate-limit-advert.ts';
import type { CallOptions } from './marketplace-client.ts';
import { type AnswerSize, BODY_CAP_SETTINGS, type ResolvedOptions } from './marketplace-client-options.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface HttpRequest {
  readonly method: HttpMethod;
  /** Below the API prefix, identifiers already encoded: `/accounts/12`. */
  readonly path: string;
  /** Without '?'. */
  readonly query?: string;
  readonly json?: unknown;
  readonly form?: FormData;
  /** false for offer creates: a blind retry could make a second offer. */
  readonly idempotent: boolean;
  /** Which cap the answer's body is read under. Default 'single'. */
  readonly answer?: AnswerSize;
  readonly call?: CallOptions;
}

export interface HttpResponse {
  readonly status: number;
  /** Parsed JSON; undefined for an empty body (204). */
  readonly body: unknown;
  /** For errors about the body's shape. */
  readonly where: Where;
  readonly snippet: string;
  /** What the answer said about the rate limit; the request queue reads it (duck-typed) to pace itself. */
  readonly rateLimit?: RateLimitAdvert;
}

/** The string values of a body's `credentials` object. */
function credentialValues(json: unknown): string[] {
  const c = (json as { credentials?: unknown } | null | undefined)?.credentials;
  if (c === null || typeof c !== 'object') return [];
  return Object.values(c).filter((v): v is string => typeof v === 'string');
}

export class HttpTransport {
  private readonly pool: Pool;

  constructor(
    private readonly opts: ResolvedOptions,
    private readonly logger: Logger,
  ) {
    this.pool = new Pool(opts.origin, {
      connections: opts.connections,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.idleTimeoutMs,
      connect: { timeout: Math.min(opts.timeoutMs, 10_000) },
    });
  }

  /** Full path as sent (without query), for the scheduler and for errors. */
  fullPath(path: string): string {
    return this.opts.prefix + path;
  }

  send(req: HttpRequest): Promise<HttpResponse> {
    const where: Where = {
      method: req.method,
      path: this.fullPath(req.path),
      ...(req.query ? { query: req.query } : {}),
    };
    const meta = {
      method: req.method,
      path: where.path,
      idempotent: req.idempotent,
      ...(req.call?.priority !== undefined ? { priority: req.call.priority } : {}),
    };
    return this.opts.schedule(meta, () => this.once(req, where));
  }

  private async once(req: HttpRequest, where: Where): Promise<HttpResponse> {
    const caller = req.call?.signal;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.opts.apiKey}`,
      'user-agent': this.opts.userAgent,
      accept: 'application/json',
    };
    const idempotencyKey = req.call?.idempotencyKey;
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    let body: string | FormData | undefined;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    } else if (req.form) {
      body = req.form; // undici sets the multipart content-type with its boundary
    }
    const started = performance.now();
    const answer = req.answer ?? 'single';
    const cap = this.opts.maxBodyBytes[answer];
    let status: number;
    let text: string | undefined;
    let tooLarge: { read: number } | undefined;
    let resHeaders: Readonly<Record<string, string | undefined>>;
    try {
      const res = await dispatchCapped(
        this.pool,
        { method: req.method, path: where.path + (req.query ? `?${req.query}` : ''), headers, body: body ?? null },
        { capBytes: cap, deadlineMs: this.opts.timeoutMs, ...(caller ? { signal: caller } : {}) },
      );
      status = res.status;
      resHeaders = res.headers;
      if ('text' in res.body) text = res.body.text;
      else tooLarge = res.body;
    } catch (err) {
      const e = errorFromException(
        where,
        err,
        { timedOut: err instanceof DeadlineError, aborted: caller?.aborted ?? false },
        { timeoutMs: this.opts.timeoutMs, idleTimeoutMs: this.opts.idleTimeoutMs },
      );
      this.logger.debug({ method: where.method, path: where.path, err: e.message }, 'marketplace request failed');
      const seconds = (performance.now() - started) / 1000;
      this.opts.onResponse?.({ method: where.method, path: where.path, status: null, seconds });
      throw e;
    }
    const ms = performance.now() - started;
    this.logger.debug({ method: where.method, path: where.path, status, ms: Math.round(ms) }, 'marketplace request');
    this.opts.onResponse?.({ method: where.method, path: where.path, status, seconds: ms / 1000 });
    if (text === undefined) {
      const e = new ResponseTooLargeError(
        { ...where, status },
        { bytes: cap, setting: BODY_CAP_SETTINGS[answer], read: tooLarge?.read ?? 0 },
      );
      this.logger.warn({ method: where.method, path: where.path, status, capBytes: cap }, e.message);
      throw e;
    }
    const now = Date.now();
    const advert = readRateLimitAdvert(resHeaders, now, this.opts.limitWindowSec);
    const rateLimit = advert ? { rateLimit: advert } : {};
    // A marketplace may quote a refused body in its answer (`The credentials are invalid: {"password": ...}`):
    // what this request carried is scrubbed from every error made of the answer.
    const secrets = credentialValues(req.json);
    if (status < 200 || status > 299) throw errorFromResponse(where, status, resHeaders, text, now, advert, secrets);
    if (text.trim() === '') return { status, body: undefined, where, snippet: '', ...rateLimit };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch (err) {
      throw new BadResponseError(
        { ...where, status, bodySnippet: snippetOf(text, secrets), cause: err, secrets, ...rateLimit },
        'answer is not JSON',
      );
    }
    const forbidden = textMayHoldForbiddenKey(text) ? forbiddenKeyPaths(parsed)[0] : undefined;
    if (forbidden) {
      // Its decoded objects would carry a key that writes to a prototype: the answer is not read at all.
      throw new BadResponseError(
        { ...where, status, bodySnippet: snippetOf(text, secrets), secrets, ...rateLimit },
        `answer holds the key '${String(forbidden[forbidden.length - 1])}' (at /${forbidden.join('/')}), which ` +
          'names a JavaScript prototype, not data: offersync reads no answer holding one',
      );
    }
    return {
      status,
      body: parsed,
      where,
      // Made only when an answer cannot be decoded: the scrub is not paid on every answer.
      get snippet() {
        return snippetOf(text, secrets);
      },
      ...rateLimit,
    };
  }

  private closing?: Promise<void>;

  /** Idempotent: a second close waits for the first. */
  close(): Promise<void> {
    this.closing ??= this.pool.close().then(() => undefined);
    return this.closing;
  }
}
