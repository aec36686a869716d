// Request bodies, bounded: a body over the limit is read to its end and discarded (so the client gets to
// read the 413) unless it is far over, then the connection is closed. Malformed JSON is a 400.
import type { IncomingMessage } from 'node:http';
import { forbiddenKeyPaths } from '../input/forbidden-keys.ts';
import { HttpError } from './http-error.ts';

export class BodyTooLarge extends HttpError {
  constructor(
    limit: number,
    /** True when the rest of the body was not read: the connection must close after the answer. */
    readonly abandoned: boolean,
  ) {
    super(413, `The request body is larger than ${limit} bytes.`);
  }
}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const drainCap = limit * 4 + 16 * 1024 * 1024;
  const declared = Number(req.headers['content-length']);
  return new Promise((resolve, reject) => {
    if (Number.isFinite(declared) && declared > drainCap) {
      req.resume();
      reject(new BodyTooLarge(limit, true));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > drainCap) {
        req.off('data', onData);
        req.resume();
        reject(new BodyTooLarge(limit, true));
        return;
      }
      if (size > limit) over = true;
      if (!over) chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => (over ? reject(new BodyTooLarge(limit, false)) : resolve(Buffer.concat(chunks, size))));
    req.once('error', reject);
    req.once('aborted', () => reject(new HttpError(400, 'The request was aborted.')));
  });
}

/** The JSON object of a body; an empty body is {}. */
export function parseJsonObject(raw: Buffer, contentType: string): Record<string, unknown> {
  if (raw.length === 0) return {};
  if (contentType !== '' && !/^application\/(?:[\w.+-]*\+)?json\b/i.test(contentType)) {
    throw new HttpError(
      415,
      `The request body must be JSON (Content-Type: application/json), got ${JSON.stringify(contentType)}.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new HttpError(400, `Malformed JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new HttpError(422, 'The request body must be a JSON object.');
  const forbidden = forbiddenKeyPaths(parsed)[0];
  if (forbidden)
    throw new HttpError(400, `The request body holds the key at /${forbidden.join('/')}, which names a prototype.`);
  return parsed as Record<string, unknown>;
}
