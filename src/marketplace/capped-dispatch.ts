// One request through undici's dispatch, its answer read whole up to a cap so memory stays bounded whatever a
// server sends: the status, the headers (names lower case, the first of repeated ones) and the body, or word that
// the body went over the cap (a body that streams forever or a huge one: the connection is then aborted). No
// response stream is made: every write's answer passes here, and a stream costs a few objects, ticks and promises
// per answer. Fails as undici fails the request (its error, or the signal's reason once aborted).
import type { Dispatcher } from 'undici';

export type CappedBody =
  | { readonly text: string }
  /** `read`: bytes taken before stopping; 0 when Content-Length already said too much. */
  | { readonly tooLarge: true; readonly read: number };

export interface CappedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: CappedBody;
}

// Decodes as undici's body.text() did: UTF-8, a leading BOM dropped, bad sequences replaced.
const UTF8 = new TextDecoder('utf-8');

type Abort = (reason?: Error) => void;

class CappedHandler implements Dispatcher.DispatchHandler {
  readonly #cap: number;
  readonly #signal: AbortSignal;
  readonly #resolve: (a: CappedAnswer) => void;
  readonly #reject: (err: unknown) => void;
  #abort: Abort | undefined;
  #settled = false;
  #status = 0;
  #headers: Record<string, string | undefined> = {};
  readonly #chunks: Buffer[] = [];
  #size = 0;
  readonly #onAbort = () => {
    const reason = this.#signal.reason as Error;
    if (this.#abort) this.#abort(reason);
    else this.#fail(reason);
  };

  constructor(cap: number, signal: AbortSignal, resolve: (a: CappedAnswer) => void, reject: (err: unknown) => void) {
    this.#cap = cap;
    this.#signal = signal;
    this.#resolve = resolve;
    this.#reject = reject;
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  onConnect(abort: Abort): void {
    this.#abort = abort;
    if (this.#settled) abort(this.#signal.reason as Error);
  }

  onHeaders(status: number, raw: Buffer[] | string[] | null): boolean {
    if (status < 200) return true; // 1xx: the answer is still to come
    this.#status = status;
    const headers: Record<string, string | undefined> = Object.create(null);
    if (raw)
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const name = raw[i]!.toString('latin1').toLowerCase();
        if (headers[name] === undefined) headers[name] = raw[i + 1]!.toString('latin1');
      }
    this.#headers = headers;
    const length = headers['content-length'];
    if (length !== undefined && Number(length) > this.#cap) this.#tooLarge(0);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#settled) return true;
    if (this.#size + chunk.length > this.#cap) {
      this.#tooLarge(this.#size + chunk.length);
      return true;
    }
    this.#size += chunk.length;
    this.#chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.#settled) return;
    this.#done();
    const bytes = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#size);
    this.#resolve({ status: this.#status, headers: this.#headers, body: { text: UTF8.decode(bytes) } });
  }

  onError(err: Error): void {
    this.#fail(err);
  }

  #tooLarge(read: number): void {
    this.#done();
    this.#resolve({ status: this.#status, headers: this.#headers, body: { tooLarge: true, read } });
    // What is left of the body is not read: the connection goes.
    this.#abort?.(new Error('answer over its size cap: not read'));
  }

  #fail(err: unknown): void {
    if (this.#settled) return;
    this.#done();
    this.#reject(err);
  }

  #done(): void {
    this.#settled = true;
    this.#signal.removeEventListener('abort', this.#onAbort);
  }
}

export function dispatchCapped(
  dispatcher: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  cap: number,
  signal: AbortSignal,
): Promise<CappedAnswer> {
  return new Promise<CappedAnswer>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    dispatcher.dispatch(opts, new CappedHandler(cap, signal, resolve, reject));
  });
}
