// One request through undici's dispatch, its answer read whole up to a cap so memory stays bounded whatever a
// server sends: the status, the headers (names lower case, the first of repeated ones) and the body, or word that
// the body went over the cap (a body that streams forever or a huge one: the connection is then aborted). No
// response stream is made: every write's answer passes here, and a stream costs a few objects, ticks and promises
// per answer. A deadline covers the whole request, body included: a timer of its own, cleared once settled (not
// AbortSignal.timeout, whose signal lives until collected). Fails as undici fails the request (its error), with a
// DeadlineError once past the deadline, or with the caller's signal's reason once that aborts.
// node:timers, not the global: a test's fake timers must not hold or fire a real request's deadline.
import { clearTimeout, setTimeout } from 'node:timers';
import type { Dispatcher } from 'undici';

/** The request's deadline passed before its answer was read whole. */
export class DeadlineError extends Error {
  override readonly name = 'TimeoutError';
}

export interface DispatchLimits {
  /** The most bytes of body read. */
  readonly capBytes: number;
  /** From dispatch to the body's last byte. */
  readonly deadlineMs: number;
  /** The caller's: once aborted, the request is. */
  readonly signal?: AbortSignal;
}

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
  readonly #signal: AbortSignal | undefined;
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #resolve: (a: CappedAnswer) => void;
  readonly #reject: (err: unknown) => void;
  #abort: Abort | undefined;
  #settled = false;
  #status = 0;
  #headers: Record<string, string | undefined> = {};
  readonly #chunks: Buffer[] = [];
  #size = 0;
  /** Why the request was stopped before it settled, once it was. */
  #stopped: Error | undefined;

  constructor(limits: DispatchLimits, resolve: (a: CappedAnswer) => void, reject: (err: unknown) => void) {
    this.#cap = limits.capBytes;
    this.#signal = limits.signal;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#timer = setTimeout(expire, limits.deadlineMs, this, limits.deadlineMs);
    // The handler is its own listener (handleEvent): no closure made per request.
    this.#signal?.addEventListener('abort', this, { once: true });
  }

  /** The deadline passed. */
  expired(ms: number): void {
    this.#stop(new DeadlineError(`no whole answer within ${ms} ms`));
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.#stop(this.#signal?.reason as Error);
  }

  onConnect(abort: Abort): void {
    this.#abort = abort;
    if (this.#stopped) abort(this.#stopped);
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

  #stop(reason: Error): void {
    if (this.#settled) return;
    this.#stopped = reason;
    // Not connected yet: it fails now, and is aborted once undici hands it a connection.
    if (this.#abort) this.#abort(reason);
    else this.#fail(reason);
  }

  #fail(err: unknown): void {
    if (this.#settled) return;
    this.#done();
    this.#reject(err);
  }

  #done(): void {
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener('abort', this);
  }
}

function expire(handler: CappedHandler, ms: number): void {
  handler.expired(ms);
}

export function dispatchCapped(
  dispatcher: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  limits: DispatchLimits,
): Promise<CappedAnswer> {
  return new Promise<CappedAnswer>((resolve, reject) => {
    if (limits.signal?.aborted) return reject(limits.signal.reason);
    dispatcher.dispatch(opts, new CappedHandler(limits, resolve, reject));
  });
}
