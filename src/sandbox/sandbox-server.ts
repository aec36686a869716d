// startSandbox: the marketplace emulator on node:http. A request goes by its path: /api/v1 to the API
// (api-exchange.ts: faults, limits, key, route, body, handler), /__sandbox/ to the control routes (beyond loopback
// they need the API key: control.ts), /storage/gallery/ to the uploaded images; anything else is 404. What the
// sandbox holds is SandboxState; what tests may do to it, sandboxControls.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleApi } from './api-exchange.ts';
import { readBody } from './body.ts';
import { controlNeedsKey, handleControl, type Controls } from './control.ts';
import { HttpError } from './http-error.ts';
import { sandboxControls } from './sandbox-controls.ts';
import { resolveOptions, type RunningSandbox, type SandboxOptions } from './sandbox-options.ts';
import { SandboxState } from './sandbox-state.ts';
import { send } from './send.ts';

export type {
  RunningSandbox,
  SandboxBulk,
  SandboxCounters,
  SandboxFaults,
  SandboxOptions,
  SandboxRepresentation,
} from './sandbox-options.ts';

/** Where uploaded images are served (the url the image routes give). */
const GALLERY_PREFIX = '/storage/gallery/';

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const state = new SandboxState(resolveOptions(opts));
  const controls = sandboxControls(state);
  let baseUrl = '';
  const server = createServer((req, res) => {
    const url = requestUrl(req, baseUrl);
    const work = url.pathname.startsWith('/__sandbox/')
      ? handleControlRequest(state, controls, req, res, url)
      : url.pathname === '/api/v1' || url.pathname.startsWith('/api/v1/')
        ? handleApi(state, req, res, url)
        : url.pathname.startsWith(GALLERY_PREFIX)
          ? Promise.resolve(serveImage(state, req, res, url))
          : Promise.resolve(send(res, 404, { message: `The route ${url.pathname} could not be found.` }));
    work.catch((err: unknown) => {
      process.stderr.write(`sandbox: ${String(err)}\n`);
      send(res, 500, { message: 'Server Error' });
    });
  });
  // Never hang on a client that stops sending.
  server.requestTimeout = 60_000;
  server.headersTimeout = 30_000;

  const { host: bindHost, port: bindPort } = state.options;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(bindPort, bindHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  baseUrl = `http://${host}:${port}`;

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

/** The URL the client asked for: against its Host header, else (none, or not a host) the sandbox's own. */
function requestUrl(req: IncomingMessage, baseUrl: string): URL {
  try {
    return new URL(req.url ?? '/', req.headers.host ? `http://${req.headers.host}` : baseUrl);
  } catch {
    return new URL(req.url ?? '/', baseUrl);
  }
}

async function handleControlRequest(
  state: SandboxState,
  controls: Controls,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  if (controlNeedsKey(state.options.host) && state.bearer(req) === undefined) {
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
    const raw = req.method === 'POST' ? await readBody(req, state.options.maxJsonBytes) : Buffer.alloc(0);
    const a = handleControl(controls, req.method ?? 'GET', url.pathname, raw);
    send(res, a.status, a.body);
  } catch (err) {
    if (err instanceof HttpError) send(res, err.status, err.body());
    else send(res, 500, { message: (err as Error).message });
  }
}

/** An uploaded image at its public url: no key, as storage serves it; counted, never a fault. */
function serveImage(state: SandboxState, req: IncomingMessage, res: ServerResponse, url: URL): void {
  const filename = decodeURIComponent(url.pathname.slice(GALLERY_PREFIX.length));
  // Filenames carry random bytes: unique across the stores of sellerPerKey.
  const owner = state.allStores().find((s) => s.imageBytes.has(filename));
  const bytes = owner?.imageBytes.get(filename);
  const image = owner && [...owner.images.values()].find((i) => i.filename === filename);
  const key = `${req.method ?? 'GET'} ${GALLERY_PREFIX}{filename}`;
  if (req.method !== 'GET' || !bytes || !image) {
    state.counters.record(key, 404);
    send(res, 404, { message: `No image ${filename}.` });
    return;
  }
  state.counters.record(key, 200);
  res.writeHead(200, { 'content-type': image.mime_type, 'content-length': String(bytes.length) });
  res.end(bytes);
}
