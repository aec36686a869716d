// handleApi: one request to /api/v1. It goes: latency -> faults (drop, 5xx) -> the site's window per address ->
// bearer key -> rate limit per key -> route (404/405/disabled) -> body -> idempotency -> handler -> persist ->
// perhaps a lost response. Each step is a function below; a step that answers ends the request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiRequest, ApiResult, RouteDef } from './api-route.ts';
import { BodyTooLarge, parseJsonObject, readBody } from './body.ts';
import { DatabaseError } from './database-error.ts';
import { echoedCredentials, type FaultDecision } from './faults.ts';
import { HttpError } from './http-error.ts';
import { IdempotencyKeys } from './idempotency.ts';
import { RateLimiter } from './rate-limit.ts';
import { Reply } from './reply.ts';
import { matchRoute, type RouteMatch } from './router.ts';
import type { SandboxState } from './sandbox-state.ts';
import { refusalBody, WindowLimiter } from './window-limiter.ts';

/** The create routes, where an Idempotency-Key is honoured when the switch is on. */
const CREATE_PATHS = new Set(['/api/v1/accounts', '/api/v1/items', '/api/v1/top-ups']);

/** Room for the multipart framing around a file of maxUploadBytes. */
const MULTIPART_OVERHEAD = 64 * 1024;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** An Idempotency-Key honoured for this request: its scope (API key and route), the key, the body's fingerprint. */
interface Idempotent {
  readonly scope: string;
  readonly key: string;
  readonly fingerprint: string;
}

export async function handleApi(state: SandboxState, req: IncomingMessage, res: ServerResponse, url: URL) {
  const method = req.method ?? 'GET';
  const match = matchRoute(method, url.pathname);
  const decision = state.faults.decide();
  const reply = new Reply(req, res, state.counters, match.key);
  try {
    const key = await admit(state, req, decision, reply);
    if (key === undefined) return;
    if (match.kind !== 'route') return refuseRoute(match, method, url, reply);
    const { route } = match;
    const ctx = state.context(key);
    if (route.disabledAs && ctx.isDisabled(route.disabledAs)) return refuseDisabled(route, method, url, reply);
    const apiReq = await readRequest(state, req, route, match.params, url);
    const echoed = state.faults.faults.echoCredentials ? echoedCredentials(match.key, apiReq.body) : undefined;
    if (echoed) return reply.answer(422, echoed);
    const idem = idempotencyOf(state, req, route, key, apiReq.raw);
    if (idem) {
      const seen = state.idempotency.lookup(idem.scope, idem.key, idem.fingerprint);
      if (seen.kind === 'replay')
        return reply.answer(seen.answer.status, seen.answer.body, { 'idempotent-replayed': 'true' });
      if (seen.kind === 'mismatch')
        return reply.answer(422, { message: 'The Idempotency-Key was already used with a different request body.' });
    }
    const result = await route.handle(ctx, apiReq);
    if (idem && result.status >= 200 && result.status < 300)
      state.idempotency.keep(idem.scope, idem.key, idem.fingerprint, { status: result.status, body: result.body });
    return answerResult(state, result, decision, reply);
  } catch (err) {
    return answerError(err, req, method, url, reply);
  }
}

/**
 * The steps before the route: latency, a dropped request or a 5xx of the faults, the site's window, the bearer
 * key, the rate limit per key. The request's API key when it passed them; undefined when one answered.
 */
async function admit(
  state: SandboxState,
  req: IncomingMessage,
  decision: FaultDecision,
  reply: Reply,
): Promise<string | undefined> {
  if (state.faults.latencyMs > 0) await sleep(state.faults.latencyMs);
  if (decision.drop) return void reply.destroy('dropped');
  if (decision.error) {
    const message =
      decision.error === 500 ? 'Server Error' : decision.error === 502 ? 'Bad Gateway' : 'Service Unavailable';
    return void reply.answer(decision.error, { message });
  }
  const { limiter } = state;
  if (limiter instanceof WindowLimiter) {
    // The site's limiter sees every request of an address before the API does, a bad key's too.
    const refusal = limiter.admit(
      {
        address: req.socket.remoteAddress ?? '',
        userAgent: req.headers['user-agent'] ?? '',
        accept: req.headers.accept ?? '',
      },
      Date.now(),
    );
    if (refusal) {
      const page = refusalBody(refusal);
      reply.record(429);
      if (reply.res.headersSent || reply.res.destroyed) return undefined;
      reply.res.writeHead(429, {
        'content-type': page.contentType,
        'content-length': String(Buffer.byteLength(page.text)),
        'retry-after': String(refusal.retryAfterSec),
      });
      return void reply.res.end(page.text);
    }
  }
  const key = state.bearer(req);
  if (key === undefined)
    return void reply.answer(401, { message: 'Unauthenticated.' }, { 'www-authenticate': 'Bearer' });
  if (limiter instanceof RateLimiter) {
    const r = limiter.take(key, Date.now());
    reply.extra = limiter.headers(r);
    if (!r.allowed)
      return void reply.answer(429, { message: 'Too Many Attempts.' }, { 'retry-after': String(r.retryAfterSec) });
  }
  return key;
}

/** No route at this path (404), or none for this method (405, with the methods there are). */
function refuseRoute(match: Exclude<RouteMatch, { kind: 'route' }>, method: string, url: URL, reply: Reply): void {
  if (match.kind === 'not-found') {
    reply.answer(404, { message: `The route ${url.pathname} could not be found.` });
    return;
  }
  const message =
    `The ${method} method is not supported for route ${url.pathname}. Supported methods: ` +
    `${match.allow.join(', ')}.`;
  reply.answer(405, { message }, { allow: match.allow.join(', ') });
}

/** A route the faults disabled: 405 for the account update (as the real site), else 404. */
function refuseDisabled(route: RouteDef, method: string, url: URL, reply: Reply): void {
  if (route.disabledAs === 'accounts.update') {
    const message = `The ${method} method is not supported for route ${url.pathname}.`;
    reply.answer(405, { message }, { allow: 'GET, DELETE' });
    return;
  }
  reply.answer(404, { message: `The route ${url.pathname} could not be found.` });
}

/** The request as a handler gets it: its body read up to the route's bound, and parsed when JSON. */
async function readRequest(
  state: SandboxState,
  req: IncomingMessage,
  route: RouteDef,
  params: Record<string, string>,
  url: URL,
): Promise<ApiRequest> {
  const contentType = req.headers['content-type'] ?? '';
  const { maxUploadBytes, maxJsonBytes } = state.options;
  const raw =
    route.body === 'none'
      ? Buffer.alloc(0)
      : await readBody(req, route.body === 'multipart' ? maxUploadBytes + MULTIPART_OVERHEAD : maxJsonBytes);
  return {
    params,
    query: url.searchParams,
    url,
    body: route.body === 'json' ? parseJsonObject(raw, contentType) : {},
    raw,
    contentType,
  };
}

/** The Idempotency-Key honoured: with the switch on, on a create route, when the request sends one. */
function idempotencyOf(
  state: SandboxState,
  req: IncomingMessage,
  route: RouteDef,
  key: string,
  raw: Buffer,
): Idempotent | undefined {
  const idemKey = req.headers['idempotency-key'];
  return state.representation.idempotencyKeys === true &&
    route.method === 'POST' &&
    CREATE_PATHS.has(route.path) &&
    typeof idemKey === 'string' &&
    idemKey !== ''
    ? { scope: `${key} ${route.path}`, key: idemKey, fingerprint: IdempotencyKeys.fingerprint(raw) }
    : undefined;
}

/** The handler's result: a write counted and persisted, then perhaps lost; else its page or its JSON. */
function answerResult(state: SandboxState, result: ApiResult, decision: FaultDecision, reply: Reply): void {
  if (result.wrote) {
    state.counters.wrote();
    state.persist();
    if (decision.lost === 'socket') {
      reply.destroy('lost');
      return;
    }
    if (decision.lost === 'status') {
      reply.answer(502, { message: 'Bad Gateway' });
      return;
    }
  }
  if (result.html !== undefined) {
    reply.record(result.status);
    reply.res.writeHead(result.status, { 'content-type': 'text/html; charset=utf-8', ...reply.extra });
    reply.res.end(result.html);
    return;
  }
  reply.answer(result.status, result.body);
}

/** A thrown error as the real server answers it: PHP's database error, an HTTP error, else a 500 logged. */
function answerError(err: unknown, req: IncomingMessage, method: string, url: URL, reply: Reply): void {
  if (err instanceof DatabaseError) {
    // PHP's uncaught exception: its JSON only to a client that asks for JSON, else an empty 200.
    if (/application\/json/i.test(req.headers.accept ?? '')) {
      reply.answer(500, err.errorInfoBody());
      return;
    }
    reply.record(200);
    reply.res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8', 'content-length': '0', ...reply.extra });
    reply.res.end();
    return;
  }
  if (err instanceof HttpError) {
    const headers: Record<string, string> = { ...err.headers };
    if (err instanceof BodyTooLarge && err.abandoned) headers.connection = 'close';
    reply.answer(err.status, err.body(), headers);
    return;
  }
  process.stderr.write(
    `sandbox: ${method} ${url.pathname}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  reply.answer(500, { message: 'Server Error' });
}
