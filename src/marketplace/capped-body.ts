// Reads an answer's body up to a cap, so memory stays bounded whatever a server sends: a body that streams
// forever or a huge one is cut off at the cap, and destroying the stream closes its connection.
import type { Readable } from 'node:stream';

export type CappedBody =
  | { readonly text: string }
  /** `read`: bytes taken before stopping; 0 when Content-Length already said too much. */
  | { readonly tooLarge: true; readonly read: number };

// Decodes as undici's body.text() did: UTF-8, a leading BOM dropped, bad sequences replaced.
const UTF8 = new TextDecoder('utf-8');

export async function readCappedBody(
  body: Readable,
  capBytes: number,
  contentLength: string | undefined,
): Promise<CappedBody> {
  if (contentLength !== undefined && Number(contentLength) > capBytes) {
    body.destroy();
    return { tooLarge: true, read: 0 };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > capBytes) {
      body.destroy();
      return { tooLarge: true, read: size + chunk.length };
    }
    size += chunk.length;
    chunks.push(chunk);
  }
  return { text: UTF8.decode(Buffer.concat(chunks, size)) };
}
