// send: one JSON answer, unless the response is already sent or its socket gone.
import type { ServerResponse } from 'node:http';

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(json)),
    ...headers,
  });
  res.end(json);
}
