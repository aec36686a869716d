// The daemon's HTTP server over real sockets: it answers only the Host names it serves (loopback, its bound
// address unless a wildcard, daemon.allowedHosts), so a DNS-rebinding page cannot read it, and only GET and HEAD.
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HostAllowList, hostName } from '../../src/daemon/allowed-hosts.ts';
import { DaemonMetrics } from '../../src/daemon/metrics.ts';
import { type HealthServer, type HealthServerOptions, startHealthServer } from '../../src/daemon/health-server.ts';

/** A LAN address, only ever written in a Host header: the requests themselves go to 127.0.0.1. */
const LAN = '192.0.2.10';

const source = {
  health: () => ({ ok: true, ready: true, detail: { running: false } }),
  statusPage: async () => '<!doctype html><title>status</title>',
  offerPage: async (kind: string, externalId: string) =>
    kind === 'item' ? `<!doctype html><title>${kind}|${externalId}</title>` : null,
  searchPage: async (q: string) => `<!doctype html><title>search|${q}</title>`,
};

let server: HealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(opts: Omit<HealthServerOptions, 'port'>): Promise<number> {
  const metrics = new DaemonMetrics();
  server = await startHealthServer({ ...opts, port: 0 }, source, metrics);
  return server.port;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request to `address` carrying the Host header `host`, as a browser sends the name it resolved. */
function ask(address: string, port: number, path: string, host: string, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: address, port, path, method, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const PATHS = ['/', '/metrics', '/healthz', '/readyz'];

describe('Host names', () => {
  it.each(PATHS)('a foreign Host on %s gets a plain 421 that shows nothing of the daemon', async (path) => {
    const port = await start({ host: '127.0.0.1' });
    const a = await ask('127.0.0.1', port, path, `rebind.attacker.example:${port}`);
    expect(a.status).toBe(421);
    expect(a.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(a.headers['x-content-type-options']).toBe('nosniff');
    expect(a.body).toContain('daemon.allowedHosts');
    expect(a.body).not.toMatch(/# HELP|# TYPE|"ready"|<html|<!doctype/i);
  });

  it.each([
    ['127.0.0.1', 'with its port'],
    ['localhost', 'by name'],
    ['LOCALHOST.', 'in capitals, fully qualified'],
    ['127.0.0.1', 'without a port'],
  ])('loopback %s (%s) is answered', async (name, how) => {
    const port = await start({ host: '127.0.0.1' });
    const host = how === 'without a port' ? name : `${name}:${port}`;
    for (const path of PATHS) expect((await ask('127.0.0.1', port, path, host)).status, path).toBe(200);
  });

  it('[::1] is answered', async () => {
    const port = await start({ host: '127.0.0.1' });
    expect((await ask('127.0.0.1', port, '/healthz', `[::1]:${port}`)).status).toBe(200);
  });

  it('a request without a Host is not answered', async () => {
    const port = await start({ host: '127.0.0.1' });
    const raw = await new Promise<string>((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => s.end('GET /metrics HTTP/1.0\r\n\r\n'));
      let out = '';
      s.on('data', (d: Buffer) => (out += d.toString()));
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.[01] 421 /);
  });

  it('daemon.allowedHosts adds names, ports ignored; others stay refused', async () => {
    const port = await start({ host: '127.0.0.1', allowedHosts: ['offersync.lan', '10.0.3.7:9464', '[fd00::7]'] });
    expect((await ask('127.0.0.1', port, '/metrics', `offersync.lan:${port}`)).status).toBe(200);
    expect((await ask('127.0.0.1', port, '/metrics', 'OFFERSYNC.LAN')).status).toBe(200);
    expect((await ask('127.0.0.1', port, '/readyz', `10.0.3.7:${port}`)).status).toBe(200);
    expect((await ask('127.0.0.1', port, '/readyz', `[fd00::7]:${port}`)).status).toBe(200);
    expect((await ask('127.0.0.1', port, '/metrics', 'offersync.lan.attacker.example')).status).toBe(421);
  });

  it('a bound address is answered; on a wildcard only once allowed', async () => {
    expect(new HostAllowList(LAN, []).allows(`${LAN}:9464`)).toBe(true);
    expect(new HostAllowList('0.0.0.0', []).allows(`${LAN}:9464`)).toBe(false);
    expect(new HostAllowList('::', []).allows(`[fd00::7]:9464`)).toBe(false);
    let port = await start({ host: '0.0.0.0' });
    // A Kubernetes httpGet probe or a Prometheus scrape sends the pod IP as Host.
    expect((await ask('127.0.0.1', port, '/healthz', `${LAN}:${port}`)).status).toBe(421);
    expect((await ask('127.0.0.1', port, '/healthz', `127.0.0.1:${port}`)).status).toBe(200);
    await server!.close();
    port = await start({ host: '0.0.0.0', allowedHosts: [LAN] });
    expect((await ask('127.0.0.1', port, '/healthz', `${LAN}:${port}`)).status).toBe(200);
  });

  it('serves an offer page and the search under the page policy; an unknown kind is a 404', async () => {
    const port = await start({ host: '127.0.0.1' });
    const offer = await ask('127.0.0.1', port, '/offers/item/gold%2F1%20%3Cx%3E', `127.0.0.1:${port}`);
    expect(offer.status).toBe(200);
    expect(offer.body).toContain('item|gold/1 <x>');
    // No script, nothing loaded; the search form may go to this server only.
    expect(offer.headers['content-security-policy']).toMatch(/default-src 'none'.*form-action 'self'/);
    const search = await ask('127.0.0.1', port, '/offers?q=Gold+1000', `127.0.0.1:${port}`);
    expect(search.body).toContain('search|Gold 1000');
    const unknown = await ask('127.0.0.1', port, '/offers/car/x', `127.0.0.1:${port}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('/offers/account|item|topup/EXTERNAL_ID');
    expect((await ask('127.0.0.1', port, '/offers/item/%E0%A4%A', `127.0.0.1:${port}`)).status).toBe(404);
  });

  it('reads a Host header as a name', () => {
    expect(hostName('Example.COM:9464')).toBe('example.com');
    expect(hostName('[::1]:9464')).toBe('::1');
    expect(hostName('fd00::2')).toBe('fd00::2');
    expect(hostName('shop.example.')).toBe('shop.example');
  });
});

describe('methods', () => {
  it.each(PATHS.flatMap((p) => ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'].map((m) => [m, p] as const)))(
    '%s %s gets 405 with Allow: GET, HEAD',
    async (method, path) => {
      const port = await start({ host: '127.0.0.1' });
      const a = await ask('127.0.0.1', port, path, `127.0.0.1:${port}`, method);
      expect(a.status).toBe(405);
      expect(a.headers.allow).toBe('GET, HEAD');
      expect(a.body).not.toMatch(/# HELP|"ready"/);
    },
  );

  it.each(PATHS)('HEAD %s answers 200 without a body', async (path) => {
    const port = await start({ host: '127.0.0.1' });
    const a = await ask('127.0.0.1', port, path, `127.0.0.1:${port}`, 'HEAD');
    expect(a.status).toBe(200);
    expect(a.body).toBe('');
  });
});
