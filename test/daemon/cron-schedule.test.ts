// The daemon's schedules run on the monotonic clock: a wall-clock step (NTP, a VM resumed, a person setting the
// date) neither stops them for the length of the step nor bunches their runs. vi's fake timers move the timers
// (monotonic) and, with setSystemTime, the wall clock alone: a step.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CronSchedule } from '../../src/daemon/cron-schedule.ts';

const START = Date.UTC(2026, 0, 1, 12, 0, 30);
const MINUTE = 60_000;

beforeEach(() => {
  vi.useFakeTimers({ now: START });
});
afterEach(() => {
  vi.useRealTimers();
});

function everyMinute() {
  const runs: number[] = [];
  const s = new CronSchedule('* * * * *', () => runs.push(Date.now()));
  s.start();
  return { s, runs };
}

describe('CronSchedule', () => {
  it('runs at each match and says when the next is', async () => {
    const { s, runs } = everyMinute();
    expect(s.nextRun()).toBe(Date.UTC(2026, 0, 1, 12, 1, 0));
    await vi.advanceTimersByTimeAsync(3 * MINUTE);
    expect(runs).toHaveLength(3);
    s.stop();
    expect(s.nextRun()).toBeNull();
    await vi.advanceTimersByTimeAsync(3 * MINUTE);
    expect(runs).toHaveLength(3);
  });

  it('a step back of an hour does not stop it for that hour', async () => {
    const { s, runs } = everyMinute();
    await vi.advanceTimersByTimeAsync(MINUTE);
    expect(runs).toHaveLength(1);
    vi.setSystemTime(Date.now() - 3_600_000);
    await vi.advanceTimersByTimeAsync(5 * MINUTE);
    // The run armed before the step, then one a minute by the new wall clock.
    expect(runs.length).toBeGreaterThanOrEqual(5);
    expect(runs.length).toBeLessThanOrEqual(6);
    s.stop();
  });

  it('a step forward of 120 s neither skips its schedule for long nor bunches its runs', async () => {
    const { s, runs } = everyMinute();
    await vi.advanceTimersByTimeAsync(MINUTE);
    vi.setSystemTime(Date.now() + 120_000);
    await vi.advanceTimersByTimeAsync(5 * MINUTE);
    expect(runs.length).toBeGreaterThanOrEqual(5);
    expect(runs.length).toBeLessThanOrEqual(6);
    s.stop();
  });

  it('a run is not repeated when the timer fires a hair before the wall clock reaches its slot', async () => {
    const { s, runs } = everyMinute();
    await vi.advanceTimersByTimeAsync(MINUTE / 2 - 1);
    // The wall clock slewed 5 ms slow against the monotonic one: the timer fires at 12:00:59.995.
    vi.setSystemTime(Date.now() - 5);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toHaveLength(1);
    expect(s.nextRun()).toBe(Date.UTC(2026, 0, 1, 12, 2, 0));
    s.stop();
  });
});
