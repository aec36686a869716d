// The system clock, on real timers kept short: the assertions are about order and aborts, never durations.
import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, systemClock } from '../../src/queue/clock.ts';

/** `p`, or `label` if a real timer of `ms` fires first; the timer is cleared either way. */
async function raceTimer<T>(p: Promise<T>, ms: number, label: string): Promise<T | string> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(label), ms);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('systemClock', () => {
  it('tells the epoch milliseconds', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('sleep resolves after a shorter timer started after it, and without a signal', async () => {
    const sleep = systemClock.sleep(40).then(() => 'sleep');
    expect(await raceTimer(sleep, 0, 'timer')).toBe('timer');
    await expect(sleep).resolves.toBe('sleep');
  });

  it('sleep with a long-lived signal resolves and leaves no listener on it', async () => {
    const ctl = new AbortController();
    for (let i = 0; i < 3; i++) await expect(systemClock.sleep(1, ctl.signal)).resolves.toBeUndefined();
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
    ctl.abort(new Error('late')); // after the sleeps: changes nothing
  });

  it('sleep rejects at once with the reason of a signal already aborted', async () => {
    const reason = new Error('stopped');
    const ctl = new AbortController();
    ctl.abort(reason);
    const sleep = systemClock.sleep(60_000, ctl.signal).then(() => 'sleep');
    await expect(raceTimer(sleep, 20, 'timer')).rejects.toBe(reason);
  });

  it('an abort during the sleep rejects it with the reason, drops its timer and its listener', async () => {
    const reason = new Error('cleared');
    const ctl = new AbortController();
    const before = timeouts();
    const sleep = systemClock.sleep(60_000, ctl.signal).then(() => 'sleep');
    expect(timeouts()).toBe(before + 1); // read in the same synchronous step: the count sees the sleep's timer
    setTimeout(() => ctl.abort(reason), 1);
    await expect(raceTimer(sleep, 1_000, 'timer')).rejects.toBe(reason);
    // A stopping process is not held up by the timer of a backoff it cut short. (At most: a timer of the
    // test runner may have ended meanwhile.)
    expect(timeouts()).toBeLessThanOrEqual(before);
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
  });

  it('a sleep longer than a timer holds arms no overflowing timer (no Node warning) and still aborts', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const reason = new Error('stopped');
      const ctl = new AbortController();
      const sleep = systemClock.sleep(999_999_999_000, ctl.signal).then(() => 'woke');
      expect(await raceTimer(sleep, 30, 'still asleep')).toBe('still asleep');
      ctl.abort(reason);
      await expect(sleep).rejects.toBe(reason);
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a sleep longer than a timer holds lasts its whole length, part after part (timers faked)', async () => {
    vi.useFakeTimers();
    try {
      let woke = false;
      const sleep = systemClock.sleep(2 * MAX_TIMER_MS + 5).then(() => {
        woke = true;
      });
      await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
      expect(woke).toBe(false);
      await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
      expect(woke).toBe(false);
      await vi.advanceTimersByTimeAsync(5);
      await sleep;
      expect(woke).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a negative sleep resolves like a zero one', async () => {
    await expect(systemClock.sleep(-5)).resolves.toBeUndefined();
  });
});
