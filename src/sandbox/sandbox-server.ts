// startSandbox: the marketplace emulator on node:http. One request goes: counters key -> latency ->
// faults (drop, 5xx) -> the site's window per address -> bearer key -> rate limit per key -> route
// (404/405/disabled) -> body -> handler -> persist -> perhaps a lost response. Control routes under /__sandbox/
// skip all of that; beyond loopback they need the API key (control.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiContext, ApiRequest } from './api-route.ts';
import { BodyTooLarge, parseJsonObject, readBody } from './body.ts';
import { controlNeedsKey, handleControl, type Controls } from './control.ts';
import { Counters } from './counters.ts';
import { echoedCredentials, FaultInjector } from './faults.ts';
import { HttpError } from './http-error.ts';
import { IdempotencyKeys } from './idempotency.ts';
import { loadStore, saveStore } from './persist.ts';
import type { SandboxStore } from './store.ts';
import { DatabaseError } from './database-error.ts';
import { RateLimiter } from './rate-limit.ts';
import { refusalBody, WindowLimiter } from './window-limiter.ts';
import { ALL_STATUSES, OFFER_KINDS } from './sandbox-records.ts';
import { matchRoute } from './router.ts';
import {
  checkBulk,
  checkFaults,
  checkRateLimit,
  checkRepresentation,
  resolveOptions,
  type OfferKind,
  type RateLimit,
  type RunningSandbox,
  type SandboxBulk,
  type SandboxOptions,
  type SandboxRepresentation,
} from './sandbox-options.ts';

export type {
  RunningSandbox,
  SandboxBulk,
  SandboxCounters,
  SandboxFaults,
  SandboxOptions,
  SandboxRepresentation,
} from './sandbox-options.ts';

/** The create routes, where an Idempotency-Key is honoured when the switch is on. */
const CREATE_PATHS = new Set(['/api/v1/accounts', '/api/v1/items', '/api/v1/top-ups']);

/** Room for the multipart framing around a file of maxUploadBytes. */
const MULTIPART_OVERHEAD = 64 * 1024;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(json)),
    ...headers,
  });
  res.end(json);
}

/** Where uploaded images are served (the url the image routes give). */
const GALLERY_PREFIX = '/storage/gallery/';

/** The token bucket per key, or the site's window per address in front of everything. */
function limiterOf(r: RateLimit | null): RateLimiter | WindowLimiter | null {
  if (r === null) return null;
  return 'window' in r ? new WindowLimiter(r) : new RateLimiter(r);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const options = resolveOptions(opts);
  let representation: SandboxRepresentation = options.representation;
  // Every store stamps its writes under the representation of the moment, changed or not since it was made.
  const stamped = (s: SandboxStore): SandboxStore => {
    s.stamps = () => representation;
    return s;
  };
  let store = stamped(loadStore(options.persistFile));
  let faults = new FaultInjector(options.faults);
  let bulk: SandboxBulk = options.bulk;
  let limiter = limiterOf(options.rateLimit);
  const counters = new Counters();
  const idempotency = new IdempotencyKeys();
  const keys = new Set(options.apiKeys);
  let baseUrl = '';

  // sellerPerKey: one store per API key, made on its first request.
  const sellerStores = new Map<string, SandboxStore>();
  const storeFor = (key: string): SandboxStore => {
    if (!options.sellerPerKey) return store;
    let s = sellerStores.get(key);
    if (!s) {
      s = stamped(loadStore(undefined));
      sellerStores.set(key, s);
    }
    return s;
  };
  const allStores = (): SandboxStore[] => (options.sellerPerKey ? [...sellerStores.values()] : [store]);

  const context = (key: string): ApiContext => ({
    store: storeFor(key),
    representation,
    bulk,
    limits: {
      defaultPerPage: options.defaultPerPage,
      maxPerPage: options.maxPerPage,
      maxUploadBytes: options.maxUploadBytes,
    },
    isDisabled: (name) => faults.faults.disabled?.includes(name) === true,
    errorInfoBodies: faults.faults.errorInfoBodies === true,
  });

  const bearer = (req: IncomingMessage): string | undefined => {
    const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    return m && keys.has(m[1]!) ? m[1] : undefined;
  };

  const requestUrl = (req: IncomingMessage): URL => {
    try {
      return new URL(req.url ?? '/', req.headers.host ? `http://${req.headers.host}` : baseUrl);
    } catch {
      return new URL(req.url ?? '/', baseUrl);
    }
  };

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const match = matchRoute(method, url.pathname);
    const decision = faults.decide();
    let extra: Record<string, string> = {};
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      counters.record(match.key, status);
      send(res, status, body, { ...extra, ...headers });
    };
    const destroy = (outcome: 'dropped' | 'lost') => {
      counters.record(match.key, outcome);
      req.socket.destroy();
    };
    try {
      if (faults.latencyMs > 0) await sleep(faults.latencyMs);
      if (decision.drop) return destroy('dropped');
      if (decision.error)
        return answer(decision.error, {
          message:
            decision.error === 500 ? 'Server Error' : decision.error === 502 ? 'Bad Gateway' : 'Service Unavailable',
        });
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
          counters.record(match.key, 429);
          if (res.headersSent || res.destroyed) return;
          res.writeHead(429, {
            'content-type': page.contentType,
            'content-length': String(Buffer.byteLength(page.text)),
            'retry-after': String(refusal.retryAfterSec),
          });
          return void res.end(page.text);
        }
      }
      const key = bearer(req);
      if (key === undefined) return answer(401, { message: 'Unauthenticated.' }, { 'www-authenticate': 'Bearer' });
      if (limiter instanceof RateLimiter) {
        const r = limiter.take(key, Date.now());
        extra = limiter.headers(r);
        if (!r.allowed)
          return answer(429, { message: 'Too Many Attempts.' }, { 'retry-after': String(r.retryAfterSec) });
      }
      if (match.kind === 'not-found') return answer(404, { message: `The route ${url.pathname} could not be found.` });
      if (match.kind === 'method-not-allowed')
        return answer(
          405,
          {
            message:
              `The ${method} method is not supported for route ${url.pathname}. Supported methods: ` +
              `${match.allow.join(', ')}.`,
          },
          { allow: match.allow.join(', ') },
        );
      const { route, params } = match;
      const ctx = context(key);
      if (route.disabledAs && ctx.isDisabled(route.disabledAs)) {
        return route.disabledAs === 'accounts.update'
          ? answer(
              405,
              { message: `The ${method} method is not supported for route ${url.pathname}.` },
              { allow: 'GET, DELETE' },
            )
          : answer(404, { message: `The route ${url.pathname} could not be found.` });
      }
      const contentType = req.headers['content-type'] ?? '';
      const raw =
        route.body === 'none'
          ? Buffer.alloc(0)
          : await readBody(
              req,
              route.body === 'multipart' ? options.maxUploadBytes + MULTIPART_OVERHEAD : options.maxJsonBytes,
            );
      const apiReq: ApiRequest = {
        params,
        query: url.searchParams,
        url,
        body: route.body === 'json' ? parseJsonObject(raw, contentType) : {},
        raw,
        contentType,
      };
      const echoed = faults.faults.echoCredentials ? echoedCredentials(match.key, apiReq.body) : undefined;
      if (echoed) return answer(422, echoed);
      const idemKey = req.headers['idempotency-key'];
      const idem =
        representation.idempotencyKeys === true &&
        route.method === 'POST' &&
        CREATE_PATHS.has(route.path) &&
        typeof idemKey === 'string' &&
        idemKey !== ''
          ? { scope: `${key} ${route.path}`, key: idemKey, fingerprint: IdempotencyKeys.fingerprint(raw) }
          : undefined;
      if (idem) {
        const seen = idempotency.lookup(idem.scope, idem.key, idem.fingerprint);
        if (seen.kind === 'replay')
          return answer(seen.answer.status, seen.answer.body, { 'idempotent-replayed': 'true' });
        if (seen.kind === 'mismatch')
          return answer(422, { message: 'The Idempotency-Key was already used with a different request body.' });
      }
      const result = await route.handle(ctx, apiReq);
      if (idem && result.status >= 200 && result.status < 300)
        idempotency.keep(idem.scope, idem.key, idem.fingerprint, { status: result.status, body: result.body });
      if (result.wrote) {
        counters.wrote();
        saveStore(options.persistFile, store);
        if (decision.lost === 'socket') return destroy('lost');
        if (decision.lost === 'status') return answer(502, { message: 'Bad Gateway' });
      }
      if (result.html !== undefined) {
        counters.record(match.key, result.status);
        res.writeHead(result.status, { 'content-type': 'text/html; charset=utf-8', ...extra });
        return void res.end(result.html);
      }
      return answer(result.status, result.body);
    } catch (err) {
      if (err instanceof DatabaseError) {
        // PHP's uncaught exception: its JSON only to a client that asks for JSON, else an empty 200.
        if (/application\/json/i.test(req.headers.accept ?? '')) return answer(500, err.errorInfoBody());
        counters.record(match.key, 200);
        res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8', 'content-length': '0', ...extra });
        return void res.end();
      }
      if (err instanceof HttpError) {
        const headers: Record<string, string> = { ...err.headers };
        if (err instanceof BodyTooLarge && err.abandoned) headers.connection = 'close';
        return answer(err.status, err.body(), headers);
      }
      process.stderr.write(
        `sandbox: ${method} ${url.pathname}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      return answer(500, { message: 'Server Error' });
    }
  }

  const keyForControls = controlNeedsKey(options.host);
  async function handleControlRequest(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (keyForControls && bearer(req) === undefined) {
      send(
        res,
        401,
        {
          message:
            'This sandbox listens beyond loopback, so its control routes need its API key: send ' +
            'Authorization: Bearer <key>, or start it on 127.0.0.1.',
        },
        { 'www-authenticate': 'Bearer' },
      );
      return;
    }
    try {
      const raw = req.method === 'POST' ? await readBody(req, options.maxJsonBytes) : Buffer.alloc(0);
      const a = handleControl(controls, req.method ?? 'GET', url.pathname, raw);
      send(res, a.status, a.body);
    } catch (err) {
      if (err instanceof HttpError) send(res, err.status, err.body());
      else send(res, 500, { message: (err as Error).message });
    }
  }

  /** An uploaded image at its public url: no key, as storage serves it; counted, never a fault. */
  function serveImage(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const filename = decodeURIComponent(url.pathname.slice(GALLERY_PREFIX.length));
    // Filenames carry random bytes: unique across the stores of sellerPerKey.
    const owner = allStores().find((s) => s.imageBytes.has(filename));
    const bytes = owner?.imageBytes.get(filename);
    const image = owner && [...owner.images.values()].find((i) => i.filename === filename);
    const key = `${req.method ?? 'GET'} ${GALLERY_PREFIX}{filename}`;
    if (req.method !== 'GET' || !bytes || !image) {
      counters.record(key, 404);
      send(res, 404, { message: `No image ${filename}.` });
      return;
    }
    counters.record(key, 200);
    res.writeHead(200, { 'content-type': image.mime_type, 'content-length': String(bytes.length) });
    res.end(bytes);
  }

  const server = createServer((req, res) => {
    const url = requestUrl(req);
    const work = url.pathname.startsWith('/__sandbox/')
      ? handleControlRequest(req, res, url)
      : url.pathname === '/api/v1' || url.pathname.startsWith('/api/v1/')
        ? handleApi(req, res, url)
        : url.pathname.startsWith(GALLERY_PREFIX)
          ? Promise.resolve(serveImage(req, res, url))
          : Promise.resolve(send(res, 404, { message: `The route ${url.pathname} could not be found.` }));
    work.catch((err: unknown) => {
      process.stderr.write(`sandbox: ${String(err)}\n`);
      send(res, 500, { message: 'Server Error' });
    });
  });
  // Never hang on a client that stops sending.
  server.requestTimeout = 60_000;
  server.headersTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  baseUrl = `http://${host}:${port}`;

  const controls: Controls = {
    reset() {
      store.clear();
      store = stamped(loadStore(undefined));
      sellerStores.clear();
      saveStore(options.persistFile, store);
      counters.reset();
      idempotency.clear();
      faults = new FaultInjector(options.faults);
      representation = options.representation;
      bulk = options.bulk;
      limiter = limiterOf(options.rateLimit);
    },
    counters: () => counters.snapshot(),
    resetCounters: () => counters.reset(),
    setFaults(f) {
      faults = new FaultInjector(checkFaults(f));
    },
    setRepresentation(r) {
      representation = checkRepresentation(r);
    },
    setBulk(b) {
      bulk = checkBulk(b);
    },
    setRateLimit(r) {
      const checked = checkRateLimit(r);
      limiter = limiterOf(checked);
    },
    setStatus(kind: OfferKind, identifier: string | number, status: string) {
      if (!OFFER_KINDS.includes(kind))
        throw new TypeError(`kind: expected one of ${OFFER_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
      if (!ALL_STATUSES.includes(status))
        throw new TypeError(`status: expected one of ${ALL_STATUSES.join(', ')}, got ${JSON.stringify(status)}`);
      const owner = allStores().find((s) => s.find(kind, String(identifier)));
      const rec = owner?.find(kind, String(identifier));
      if (!owner || !rec) throw new Error(`${kind} offer ${JSON.stringify(identifier)} not found`);
      owner.update(kind, rec, { status });
      saveStore(options.persistFile, store);
    },
    sell(kind: OfferKind, identifier: string | number, quantity: number, keepStock?: boolean) {
      if (kind !== 'items' && kind !== 'top-ups')
        throw new TypeError(`kind: expected items or top-ups (accounts sell whole), got ${JSON.stringify(kind)}`);
      if (!Number.isSafeInteger(quantity) || quantity < 1)
        throw new TypeError(`quantity: expected a positive integer, got ${JSON.stringify(quantity)}`);
      const owner = allStores().find((s) => s.find(kind, String(identifier)));
      const rec = owner?.find(kind, String(identifier));
      if (!owner || !rec) throw new Error(`${kind} offer ${JSON.stringify(identifier)} not found`);
      if (rec.status !== 'listed') throw new TypeError(`${kind} offer ${rec.id} is ${rec.status}, not listed`);
      const stock = typeof rec.fields.stock === 'number' ? rec.fields.stock : null;
      if (stock !== null && stock < quantity)
        throw new TypeError(`${kind} offer ${rec.id} holds ${stock} units, fewer than ${quantity}`);
      const soldCount = (typeof rec.fields.sold_count === 'number' ? rec.fields.sold_count : 0) + quantity;
      const lower = !(keepStock ?? representation.saleKeepsStock ?? false) && stock !== null;
      const after = lower && stock !== null ? stock - quantity : stock;
      owner.update(kind, rec, { fields: { sold_count: soldCount, ...(lower ? { stock: after } : {}) } });
      saveStore(options.persistFile, store);
      return { soldCount, stock: after };
    },
    dump: () => {
      const dumps = allStores().map((s) => s.dump());
      return {
        accounts: dumps.flatMap((d) => d.accounts),
        items: dumps.flatMap((d) => d.items),
        topUps: dumps.flatMap((d) => d.topUps),
        images: dumps.flatMap((d) => d.images),
      };
    },
  };

  return {
    url: baseUrl,
    port,
    ...controls,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
