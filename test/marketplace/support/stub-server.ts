// A raw HTTP server on 127.0.0.1 for what the sandbox will not do on purpose: HTML pages with 200, cut-off
// bodies, stalls, dropped sockets, pagination that never ends. Everything the sandbox can serve is tested
// against the sandbox.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type StubHandler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

export interface StubServer {
  readonly url: string;
  /** Requests seen, as `METHOD /path?query`. */
  readonly seen: string[];
  readonly headers: IncomingMessage['headers'][];
  handle(h: StubHandler): void;
  close(): Promise<void>;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export async function startStub(): Promise<StubServer> {
  let handler: StubHandler = (_req, res) => json(res, 500, { message: 'no handler' });
  const seen: string[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      headers.push(req.headers);
      handler(req, res, Buffer.concat(chunks));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    headers,
    handle(h) {
      handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
