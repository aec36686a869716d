// The system clock, on real timers kept short: the assertions are about order and aborts, never durations.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/queue/clock.ts';

/** Resolves with `label` on a real timer of `ms`. */
const timer = (ms: number, label: string) => new Promise<string>((resolve) => setTimeout(() => resolve(label), ms));

describe('systemClock', () => {
  it('tells the epoch milliseconds', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('sleep resolves after a shorter timer started after it, and without a signal', async () => {
    const sleep = systemClock.sleep(40).then(() => 'sleep');
    const first = await Promise.race([sleep, timer(0, 'timer')]);
    expect(first).toBe('timer');
    await expect(sleep).resolves.toBe('sleep');
  });

  it('sleep with a signal that never aborts resolves; aborting it afterwards changes nothing', async () => {
    const ctl = new AbortController();
    await expect(systemClock.sleep(1, ctl.signal)).resolves.toBeUndefined();
    ctl.abort(new Error('late'));
  });

  it('sleep rejects at once with the reason of a signal already aborted', async () => {
    const reason = new Error('stopped');
    const ctl = new AbortController();
    ctl.abort(reason);
    const sleep = systemClock.sleep(60_000, ctl.signal).then(() => 'sleep');
    await expect(Promise.race([sleep, timer(20, 'timer')])).rejects.toBe(reason);
  });

  it('sleep rejects with the reason when its signal aborts before the time is up', async () => {
    const reason = new Error('cleared');
    const ctl = new AbortController();
    const sleep = systemClock.sleep(60_000, ctl.signal).then(() => 'sleep');
    setTimeout(() => ctl.abort(reason), 1);
    await expect(Promise.race([sleep, timer(1_000, 'timer')])).rejects.toBe(reason);
  });

  it('a negative sleep resolves like a zero one', async () => {
    await expect(systemClock.sleep(-5)).resolves.toBeUndefined();
  });
});
