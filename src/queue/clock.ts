// Time as the queue sees it: injected so that tests run on a fake clock instead of sleeping.

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after ms; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Node's longest timer: a longer one fires after 1 ms with a TimeoutOverflowWarning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let left = Math.max(0, ms);
      let timer: NodeJS.Timeout;
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      // A sleep longer than a timer can hold is slept in parts, never as an overflowing timer.
      const arm = () => {
        const part = Math.min(left, MAX_TIMER_MS);
        left -= part;
        timer = setTimeout(() => {
          if (left > 0) return arm();
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, part);
      };
      arm();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};
