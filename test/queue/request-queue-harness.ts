// What the request queue tests share: a queue on the fake clock that records its events, the client's error
// flags without its classes, and sends that fail on cue.
import { FakeClock } from '../../src/queue/fake-clock.ts';
import type { QueueEvent } from '../../src/queue/queue-event.ts';
import { RequestQueue } from '../../src/queue/request-queue.ts';
import type { RequestQueueOptions } from '../../src/queue/request-queue-options.ts';
import type { RequestMeta } from '../../src/queue/request-scheduler.ts';

export class FakeApiError extends Error {
  constructor(
    message: string,
    readonly flags: { retryable: boolean; outcomeUnknown: boolean; rateLimited?: boolean; retryAfterMs?: number },
  ) {
    super(message);
    Object.assign(this, flags);
  }
}
export const serverError = (n = 0) => new FakeApiError(`500 #${n}`, { retryable: true, outcomeUnknown: true });
export const tooMany = (retryAfterMs?: number) =>
  new FakeApiError('429', { retryable: true, outcomeUnknown: false, rateLimited: true, retryAfterMs });
export const refused = () => new FakeApiError('422', { retryable: false, outcomeUnknown: false });

export const get = (path = '/x', priority?: number): RequestMeta => ({
  method: 'GET',
  path,
  idempotent: true,
  priority,
});
export const create = (path = '/accounts'): RequestMeta => ({ method: 'POST', path, idempotent: false });

export function setup(opts: Partial<RequestQueueOptions> = {}) {
  const clock = new FakeClock();
  const t0 = clock.now();
  const events: QueueEvent[] = [];
  const q = new RequestQueue({ ratePerSec: 1000, clock, random: () => 0.5, onEvent: (e) => events.push(e), ...opts });
  return { clock, t0, q, events };
}

export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A send() that fails with the given errors in turn, then answers `value`; records when each attempt went. */
export function scripted<T>(clock: FakeClock, errors: unknown[], value: T) {
  const at: number[] = [];
  const send = async (): Promise<T> => {
    at.push(clock.now());
    const e = errors.shift();
    if (e !== undefined) throw e;
    return value;
  };
  return { send, at };
}

/** Runs the fake clock until `p` settles (and everything sleeping woke). */
export async function drive<T>(clock: FakeClock, p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  await clock.runAll();
  return p;
}

/** How a promise stands, read without awaiting it (for requests that must not settle yet, or never). */
export function track<T>(p: Promise<T>) {
  const s: { state: 'pending' | 'resolved' | 'rejected'; value: unknown } = { state: 'pending', value: undefined };
  p.then(
    (v) => Object.assign(s, { state: 'resolved', value: v }),
    (e) => Object.assign(s, { state: 'rejected', value: e }),
  );
  return s;
}
