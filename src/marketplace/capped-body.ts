// Reads an answer's body up to a cap, so memory stays bounded whatever a server sends: a body that streams
// forever or a huge one is cut off at the cap, and destroying the stream closes its connection.
import { finished, type Readable } from 'node:stream';

export type CappedBody =
  | { readonly text: string }
  /** `read`: bytes taken before stopping; 0 when Content-Length already said too much. */
  | { readonly tooLarge: true; readonly read: number };

// Decodes as undici's body.text() did: UTF-8, a leading BOM dropped, bad sequences replaced.
const UTF8 = new TextDecoder('utf-8');

/**
 * Read through 'data' events and one completion callback, not an async iterator: every answer of a write passes
 * here, and an iterator costs a promise per chunk. Fails as the stream does (its error, or a premature close).
 */
export function readCappedBody(
  body: Readable,
  capBytes: number,
  contentLength: string | undefined,
): Promise<CappedBody> {
  if (contentLength !== undefined && Number(contentLength) > capBytes) {
    body.destroy();
    return Promise.resolve({ tooLarge: true, read: 0 });
  }
  return new Promise<CappedBody>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over: number | undefined;
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > capBytes) {
        over = size + chunk.length;
        body.off('data', onData);
        body.destroy();
        return;
      }
      size += chunk.length;
      chunks.push(chunk);
    };
    body.on('data', onData);
    finished(body, (err) => {
      if (over !== undefined) return resolve({ tooLarge: true, read: over });
      if (err) return reject(err);
      resolve({ text: UTF8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)) });
    });
  });
}
