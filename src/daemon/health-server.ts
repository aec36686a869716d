// /healthz (the process is alive and its loop turns), /readyz (the first reconcile finished), /metrics, and the
// status page on / with each offer's page on /offers/KIND/EXTERNAL_ID and a search on /offers?q=. Read-only and
// for known names only: GET and HEAD, to a Host of allowed-hosts.ts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { HostAllowList } from './allowed-hosts.ts';

export interface HealthServerOptions {
  /** The address to listen on (daemon.healthHost). */
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  /** Host names answered besides loopback and a bound address that is not a wildcard (daemon.allowedHosts). */
  readonly allowedHosts?: readonly string[];
}

export interface HealthSource {
  health(): { readonly ok: boolean; readonly ready: boolean; readonly detail: Readonly<Record<string, unknown>> };
  /** The status page's HTML (`/`), or null without one. */
  statusPage?(): Promise<string | null>;
  /** A seller's page (`/sellers/ID`) under a replica's fleet page; null for a seller it does not serve. */
  sellerPage?(seller: string): Promise<string | null>;
  /** One offer's page (`/offers/KIND/EXTERNAL_ID`), or null when KIND is no kind of offer. */
  offerPage?(kind: string, externalId: string): Promise<string | null>;
  /** The search's page (`/offers?q=`). */
  searchPage?(query: string): Promise<string | null>;
}

// The pages run no script and load nothing: the policy says so to the browser, and no other site may frame them.
// Forms may go to this server only: the search is a GET form to /offers.
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Answers a request this server will not serve, in plain text, and says so; true when it did. */
function refused(req: IncomingMessage, res: ServerResponse, hosts: HostAllowList): boolean {
  if (!hosts.allows(req.headers.host)) {
    // 421: this server is not the one for that name. Nothing of the daemon is in the answer.
    // The Host is echoed: as plain text only, never sniffed as a page.
    res.writeHead(421, {
      'content-type': 'text/plain; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    res.end(
      `offersync does not answer for the host ${JSON.stringify(req.headers.host ?? '')}. If you reach it by this ` +
        'name (a proxy, a Kubernetes pod IP), add the name to daemon.allowedHosts (OFFERSYNC_DAEMON_ALLOWEDHOSTS).\n',
    );
    return true;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
    res.end('offersync serves these pages read-only: GET and HEAD only\n');
    return true;
  }
  return false;
}

/** The HTML page a path names, if any: `/`, `/offers?q=` or `/offers/KIND/EXTERNAL_ID` (each part URL-encoded). */
function pageOf(
  path: string,
  query: URLSearchParams,
  source: HealthSource,
): { readonly render: () => Promise<string | null>; readonly notFound: string } | undefined {
  if (path === '/' && source.statusPage) {
    const statusPage = source.statusPage.bind(source);
    return { render: statusPage, notFound: 'the status page is not available\n' };
  }
  if ((path === '/offers' || path === '/offers/') && source.searchPage) {
    const searchPage = source.searchPage.bind(source);
    return { render: () => searchPage(query.get('q') ?? ''), notFound: 'the search is not available\n' };
  }
  const m = /^\/offers\/([^/]+)\/(.+)$/.exec(path);
  if (m && source.offerPage) {
    let kind: string;
    let externalId: string;
    try {
      kind = decodeURIComponent(m[1]!);
      externalId = decodeURIComponent(m[2]!);
    } catch {
      return undefined; // not a well-formed address: answered 404 below
    }
    const offerPage = source.offerPage.bind(source);
    return {
      render: () => offerPage(kind, externalId),
      notFound: `no offer kind ${JSON.stringify(kind)}: the address is /offers/account|item|topup/EXTERNAL_ID\n`,
    };
  }
  return undefined;
}

export async function startHealthServer(
  opts: HealthServerOptions,
  source: HealthSource,
  metrics: { readonly registry: Pick<Registry, 'metrics' | 'contentType'> },
): Promise<HealthServer> {
  const hosts = new HostAllowList(opts.host, opts.allowedHosts ?? []);
  const server: Server = createServer(async (req, res) => {
    if (refused(req, res, hosts)) return;
    const head = req.method === 'HEAD';
    const [path = '/', search = ''] = (req.url ?? '/').split('?', 2);
    const page = pageOf(path, new URLSearchParams(search), source);
    if (page) {
      let html: string | null | 'unavailable';
      try {
        html = await page.render();
      } catch {
        html = 'unavailable';
      }
      if (html === null || html === 'unavailable') {
        const notFound = html === null;
        res.writeHead(notFound ? 404 : 503, {
          'content-type': 'text/plain; charset=utf-8',
          'x-content-type-options': 'nosniff',
        });
        res.end(head ? undefined : notFound ? page.notFound : 'this page is not available now: try again shortly\n');
        return;
      }
      res.writeHead(200, PAGE_HEADERS);
      res.end(head ? undefined : html);
      return;
    }
    const sellerPath = /^\/sellers\/([^/]+)$/.exec(path ?? '');
    if (sellerPath?.[1] !== undefined && source.sellerPage) {
      let seller: string;
      try {
        seller = decodeURIComponent(sellerPath[1]);
      } catch {
        seller = '';
      }
      let html: string | null;
      try {
        html = await source.sellerPage(seller);
      } catch {
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('the page of this seller is not available now (its state db does not answer?)\n');
        return;
      }
      if (html === null) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
        res.end('no such seller here: the fleet page on / lists them all\n');
        return;
      }
      res.writeHead(200, PAGE_HEADERS);
      res.end(head ? undefined : html);
      return;
    }
    if (path === '/metrics') {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(head ? undefined : text);
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
      res.end(head ? undefined : JSON.stringify({ ok: h.ok, ready: h.ready, ...h.detail }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"message":"not found: try /, /offers?q=, /healthz, /readyz or /metrics"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
