// /healthz (the process is alive and its loop turns), /readyz (the first reconcile finished), /metrics.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface HealthSource {
  health(): { readonly ok: boolean; readonly ready: boolean; readonly detail: Readonly<Record<string, unknown>> };
  /** The status page's HTML (`/`), or null without one. */
  statusPage?(): Promise<string | null>;
}

// The page runs no script and loads nothing: the policy says so to the browser, and no other site may frame it.
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startHealthServer(
  host: string,
  port: number,
  source: HealthSource,
  metrics: { readonly registry: Pick<Registry, 'metrics' | 'contentType'> },
): Promise<HealthServer> {
  const server: Server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/' && source.statusPage) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' });
        res.end('the status page is read-only\n');
        return;
      }
      let html: string | null;
      try {
        html = await source.statusPage();
      } catch {
        html = null;
      }
      if (html === null) {
        res.writeHead(503, { 'content-type': 'text/plain' });
        res.end('the status page is not available\n');
        return;
      }
      res.writeHead(200, PAGE_HEADERS);
      res.end(req.method === 'HEAD' ? undefined : html);
      return;
    }
    if (path === '/metrics') {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(text);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
      return;
    }
    if (path === '/healthz' || path === '/readyz') {
      const h = source.health();
      const good = path === '/healthz' ? h.ok : h.ready;
      res.writeHead(good ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: h.ok, ready: h.ready, ...h.detail }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"message":"not found: try /, /healthz, /readyz or /metrics"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
