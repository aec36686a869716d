import { describe, expect, it } from 'vitest';
import {
  aimdAdvertised,
  aimdBusy,
  aimdConfig,
  aimdDecrease,
  aimdIdle,
  aimdInitial,
  aimdRate,
} from '../../src/queue/aimd.ts';

const T0 = 1_000_000;

describe('AIMD with a configured rate (a hard ceiling)', () => {
  const cfg = aimdConfig({ ceiling: 50, minRate: 1 });

  it('starts at the configured rate', () => {
    expect(aimdRate(cfg, aimdInitial(cfg, T0), T0 + 10_000)).toBe(50);
  });

  it.each([
    // ms after the 429 (which paused until +1000), expected rate: halved, then climbs to the hold (45)
    [0, 25],
    [1000, 25],
    [2000, 30],
    [3500, 37.5],
    [6000, 45],
    [60_000, 45],
  ])('after a 429 at the full rate: %i ms later -> %f/s', (dt, want) => {
    const s = aimdDecrease(cfg, aimdInitial(cfg, T0), T0, T0 + 1000);
    expect(aimdRate(cfg, s, T0 + dt)).toBeCloseTo(want);
  });

  it('decreases from the rate reached by then, and never below the floor', () => {
    let s = aimdDecrease(cfg, aimdInitial(cfg, T0), T0); // 25
    s = aimdDecrease(cfg, s, T0 + 1000); // climbed to 30, halved: 15
    expect(aimdRate(cfg, s, T0 + 1000)).toBeCloseTo(15);
    for (let i = 0; i < 20; i++) s = aimdDecrease(cfg, s, T0 + 1000);
    expect(aimdRate(cfg, s, T0 + 1000)).toBe(1);
  });

  it('takes an advertised limit below the ceiling at once, never one above it', () => {
    const s = aimdInitial(cfg, T0);
    expect(aimdRate(cfg, aimdAdvertised(cfg, s, 20, T0), T0 + 60_000)).toBe(20);
    expect(aimdRate(cfg, aimdAdvertised(cfg, s, 500, T0), T0 + 60_000)).toBe(50);
    // The state's own rate (the queue reports it in its 'rate-limited' event) is the one taken, not the advert.
    expect(aimdAdvertised(cfg, s, 500, T0).rate).toBe(50);
    const held = aimdDecrease(cfg, s, T0); // hold 45
    expect(aimdAdvertised(cfg, held, 40, T0).rate).toBe(40);
    expect(aimdAdvertised(cfg, held, 48, T0).rate).toBe(45);
  });

  it.each([
    // ceiling, default floor
    [64, 1],
    [640, 10],
    [1, 0.1],
    [0.05, 0.05],
  ])('default floor for %f/s is %f/s', (ceiling, floor) => {
    expect(aimdConfig({ ceiling }).minRate).toBeCloseTo(floor);
  });
});

describe('AIMD finding the limit (ratePerSec: auto)', () => {
  const cfg = aimdConfig({ ceiling: Number.POSITIVE_INFINITY });
  /** Started at 5/s with requests waiting for the rate from T0 on. */
  const busy = () => aimdBusy(aimdInitial(cfg, T0, 5), T0);

  it.each([
    // seconds after the start at 5/s, expected rate: +5/s each second, no ceiling
    [0, 5],
    [1, 10],
    [9, 50],
    [100, 505],
  ])('climbs additively from a safe start: %i s -> %f/s', (sec, want) => {
    expect(aimdRate(cfg, busy(), T0 + sec * 1000)).toBeCloseTo(want);
  });

  it('holds just below the rate of each 429, without halving; 429s that keep coming halve it', () => {
    let s = aimdDecrease(cfg, busy(), T0 + 11_000, T0 + 12_000); // reached 60
    expect(aimdRate(cfg, s, T0 + 12_000)).toBeCloseTo(54);
    expect(aimdRate(cfg, s, T0 + 600_000)).toBeCloseTo(54);
    s = aimdDecrease(cfg, s, T0 + 600_000);
    expect(aimdRate(cfg, s, T0 + 600_000)).toBeCloseTo(48.6);
    s = aimdDecrease(cfg, s, T0 + 601_000, T0 + 601_000, true);
    expect(aimdRate(cfg, s, T0 + 601_000)).toBeCloseTo(24.3);
    expect(aimdRate(cfg, s, T0 + 700_000)).toBeCloseTo(43.74);
  });

  it('does not climb while idle (nothing waits for a token), and goes on when busy again', () => {
    expect(aimdRate(cfg, aimdInitial(cfg, T0, 5), T0 + 600_000)).toBe(5);
    const idle = aimdIdle(cfg, busy(), T0 + 2000); // 15/s when it went idle
    expect(aimdRate(cfg, idle, T0 + 600_000)).toBeCloseTo(15);
    expect(aimdRate(cfg, aimdBusy(idle, T0 + 600_000), T0 + 601_000)).toBeCloseTo(20);
  });

  it('goes to an advertised limit at once, and a 429 under it still sets the hold', () => {
    let s = aimdAdvertised(cfg, aimdInitial(cfg, T0, 5), 50, T0);
    expect(aimdRate(cfg, s, T0)).toBe(50);
    expect(aimdRate(cfg, s, T0 + 60_000)).toBe(50);
    s = aimdDecrease(cfg, s, T0 + 1000);
    expect(aimdRate(cfg, s, T0 + 60_000)).toBeCloseTo(45);
    expect(aimdAdvertised(cfg, s, 50, T0 + 61_000)).toBe(s); // the same advert again changes nothing
  });
});
