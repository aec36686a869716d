import { describe, expect, it } from 'vitest';
import { aimdConfig, aimdDecrease, aimdInitial, aimdRate } from '../../src/queue/aimd.ts';

const T0 = 1_000_000;

describe('AIMD', () => {
  const cfg = aimdConfig(50, 1);

  it('starts at the configured rate', () => {
    expect(aimdRate(cfg, aimdInitial(cfg, T0), T0 + 10_000)).toBe(50);
  });

  it.each([
    // ms after the 429 (which paused until +1000), expected rate
    [0, 25],
    [1000, 25],
    [2000, 30],
    [3500, 37.5],
    [6000, 50],
    [60_000, 50],
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

  it.each([
    // target, default floor
    [64, 1],
    [640, 10],
    [1, 0.1],
    [0.05, 0.05],
  ])('default floor for %f/s is %f/s', (target, floor) => {
    expect(aimdConfig(target).minRate).toBeCloseTo(floor);
  });
});
