// A webhook receiver on 127.0.0.1 for the notification tests: what each request carried, and a say in each answer.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly raw: string;
}

/** A webhook receiver on 127.0.0.1; `answer` chooses each response (default 200). */
export async function receiver(
  answer: (n: number, res: ServerResponse) => boolean | undefined = () => undefined,
): Promise<{
  url: string;
  got: Received[];
  attempts: () => number;
  close(): Promise<void>;
}> {
  const got: Received[] = [];
  let attempts = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      attempts++;
      if (answer(attempts, res) === true) return; // answered (or held) by the test
      got.push({ path: req.url ?? '', body: JSON.parse(raw) as Record<string, unknown>, raw });
      res.writeHead(200).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    got,
    attempts: () => attempts,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
