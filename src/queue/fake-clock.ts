// A Clock for tests: time moves only when the test says so, and sleepers wake in time order.
import type { Clock } from './clock.ts';

interface Sleeper {
  readonly at: number;
  readonly seq: number;
  readonly resolve: () => void;
}

export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #sleepers: Sleeper[] = [];

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const sleeper: Sleeper = {
        at: this.#now + Math.max(0, ms),
        seq: this.#seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#sleepers.push(sleeper);
    });
  }

  /** Sleepers not yet woken. */
  get sleeping(): number {
    return this.#sleepers.length;
  }

  /** Epoch ms of the next wake-up, if any. */
  nextWake(): number | undefined {
    let min: number | undefined;
    for (const s of this.#sleepers) if (min === undefined || s.at < min) min = s.at;
    return min;
  }

  /**
   * Moves time forward by ms, waking each sleeper at its own time and letting the promise chains it starts
   * run (they may sleep again within the window) before moving on.
   */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    await flush();
    for (;;) {
      const next = this.#popDue(end);
      if (!next) break;
      this.#now = Math.max(this.#now, next.at);
      next.resolve();
      await flush();
    }
    this.#now = end;
    await flush();
  }

  /** Advances to each next wake-up until nothing sleeps or `limit` wake-ups went by (a runaway guard). */
  async runAll(limit = 100_000): Promise<void> {
    await flush();
    for (let i = 0; i < limit; i++) {
      const at = this.nextWake();
      if (at === undefined) return;
      await this.advance(at - this.#now);
    }
    throw new Error(`FakeClock.runAll: still sleeping after ${limit} wake-ups`);
  }

  #popDue(end: number): Sleeper | undefined {
    let best: Sleeper | undefined;
    for (const s of this.#sleepers) {
      if (s.at > end) continue;
      if (!best || s.at < best.at || (s.at === best.at && s.seq < best.seq)) best = s;
    }
    if (best) this.#sleepers = this.#sleepers.filter((s) => s !== best);
    return best;
  }
}

/** Lets queued promise callbacks run: a macrotask turn drains every microtask before it. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
