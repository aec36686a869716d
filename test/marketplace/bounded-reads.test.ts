// Answers a hostile or broken server may send, through a real socket: a body that never ends, huge bodies, a
// body that trickles past the deadline, a body that stops. Each fails its own request with a typed error, after
// reading at most about the cap, and the client goes on working.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdleTimeoutError, ResponseTooLargeError, TimeoutError } from '../../src/marketplace/marketplace-errors.ts';
import type { MarketplaceClient, RemoteOffer } from '../../src/marketplace/marketplace-client.ts';
import { createMarketplaceClient } from '../../src/marketplace/undici-marketplace-client.ts';
import { json, startStub, type StubServer } from './support/stub-server.ts';

const KEY = 'stub-secret-key-0002';
const LIST_CAP = 64 * 1024;
const SINGLE_CAP = 8 * 1024;
/** What one read of the socket may bring beyond the cap before the reader sees it. */
const ONE_CHUNK = 64 * 1024;

let stub: StubServer;
let client: MarketplaceClient;

beforeAll(async () => {
  stub = await startStub();
  client = createMarketplaceClient({
    baseUrl: stub.url,
    apiKey: KEY,
    timeoutMs: 10_000,
    maxBodyBytes: { list: LIST_CAP, single: SINGLE_CAP },
  });
});
afterAll(async () => {
  await client.close();
  await stub.close();
});

async function all(pages: AsyncIterable<{ items: readonly RemoteOffer[] }>): Promise<RemoteOffer[]> {
  const out: RemoteOffer[] = [];
  for await (const p of pages) out.push(...p.items);
  return out;
}

/** Writes `chunk` as fast as the client takes it until the connection closes; resolves how much went out. */
function streamForever(res: ServerResponse, chunk: Buffer): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    res.on('close', () => resolve(written));
    const pump = () => {
      while (!res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
    };
    pump();
  });
}

/** A list page whose `data` array never closes. */
function endlessListPage(res: ServerResponse): Promise<number> {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"data":[');
  return streamForever(res, Buffer.from(`${JSON.stringify({ id: 1, external_id: 'e-1', title: 'x'.repeat(200) })},`));
}

const offerOfSize = (bytes: number) => ({ id: 1, external_id: 'e-1', title: 'x'.repeat(bytes) });

describe('answer size caps', () => {
  it('a list page that never ends fails at the list cap, names route, cap and key, and closes the stream', async () => {
    let served: Promise<number> | undefined;
    stub.handle((_req, res) => {
      served = endlessListPage(res);
    });
    const err = await all(client.items.list()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    const e = err as ResponseTooLargeError;
    expect(e).toMatchObject({ method: 'GET', path: '/api/v1/items', status: 200, capBytes: LIST_CAP });
    expect(e).toMatchObject({ setting: 'http.maxBodyBytes.list', retryable: false, outcomeUnknown: false });
    expect(e.readBytes).toBeGreaterThan(LIST_CAP);
    expect(e.readBytes).toBeLessThanOrEqual(LIST_CAP + ONE_CHUNK);
    expect(e.message).toMatch(/^GET \/api\/v1\/items\?.*: 200 answer larger than the cap of 65536 bytes/);
    expect(e.message).toContain('raise http.maxBodyBytes.list');
    // The server sees its connection closed: the stream was cancelled, not drained.
    const written = await served!;
    expect(written).toBeGreaterThan(LIST_CAP);
  });

  it('huge answers with a Content-Length fail before a byte of them is read', async () => {
    const huge = Buffer.alloc(100 * 1024 * 1024, 0x20);
    stub.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(huge.length) });
      res.end(huge);
    });
    for (let i = 1; i <= 3; i++) {
      const err = await client.items.get({ id: i }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResponseTooLargeError);
      expect(err).toMatchObject({ path: `/api/v1/items/${i}`, readBytes: 0, setting: 'http.maxBodyBytes.single' });
    }
  });

  it('a huge error answer without a Content-Length is capped too', async () => {
    stub.handle((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      void streamForever(res, Buffer.alloc(16 * 1024, 0x41));
    });
    const err = await client.items.update({ id: 1 }, { price: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err).toMatchObject({ method: 'PATCH', status: 500, outcomeUnknown: true, retryable: false });
    expect((err as ResponseTooLargeError).readBytes).toBeLessThanOrEqual(SINGLE_CAP + ONE_CHUNK);
  });

  it('the cap follows the route: one offer over the single cap fails, as many bytes in a list page pass', async () => {
    const size = SINGLE_CAP * 2;
    stub.handle((req, res) => {
      if (req.url!.startsWith('/api/v1/items?')) json(res, 200, { data: [offerOfSize(size)], links: { next: null } });
      else json(res, 200, offerOfSize(size));
    });
    await expect(client.items.get({ id: 1 })).rejects.toMatchObject({
      name: 'ResponseTooLargeError',
      setting: 'http.maxBodyBytes.single',
    });
    await expect(all(client.items.list())).resolves.toHaveLength(1);
  });

  it('bulk answers are read under the list cap', async () => {
    const results = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, external_id: `e-${i + 1}`, success: true }));
    stub.handle((_req, res) => json(res, 200, { success: true, results, padding: 'x'.repeat(SINGLE_CAP) }));
    await expect(client.topUps.bulkUpdate([{ id: 1, external_id: 'e-1', price: 1 }])).resolves.toBeDefined();
  });

  it('after a capped answer the client goes on working', async () => {
    stub.handle((_req, res) => json(res, 200, { id: 7, external_id: 'e-7' }));
    await expect(client.items.get({ id: 7 })).resolves.toMatchObject({ id: 7 });
  });
});

describe('answer deadlines', () => {
  it('a body that trickles without end fails at the whole-request deadline', async () => {
    const impatient = createMarketplaceClient({ baseUrl: stub.url, apiKey: KEY, timeoutMs: 300, idleTimeoutMs: 5000 });
    let timer: NodeJS.Timeout | undefined;
    stub.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":1,"external_id":"e-1","title":"');
      timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('x')), 20);
    });
    try {
      const err = await impatient.items.get({ id: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TimeoutError);
      expect(err).not.toBeInstanceOf(IdleTimeoutError);
      expect((err as Error).message).toContain('no complete answer within 300 ms');
    } finally {
      clearInterval(timer);
      await impatient.close();
    }
  });

  it('a body that stops sending fails at the idle timeout, and says so', async () => {
    const idle = createMarketplaceClient({ baseUrl: stub.url, apiKey: KEY, timeoutMs: 10_000, idleTimeoutMs: 200 });
    stub.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":1,');
    });
    try {
      const err = await idle.items.get({ id: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdleTimeoutError);
      expect(err).toMatchObject({ retryable: true });
      expect((err as Error).message).toContain('no byte for 200 ms (http.idleTimeoutMs)');
    } finally {
      await idle.close();
    }
  });
});
