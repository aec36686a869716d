// The rate `ratePerSec: auto` learnt, kept for the next run.
import { describe, expect, it } from 'vitest';
import { loadLearntRate, saveLearntRate, startRate } from '../../src/queue/learnt-rate.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';

const NOW = 1_800_000_000_000;
const DAY = 24 * 60 * 60 * 1000;

describe('learnt rate', () => {
  const auto = loadConfig({ env: {} });
  const fixed = loadConfig({ env: {}, overrides: { rateLimit: { ratePerSec: 7 } } });

  it('a new state db starts auto at the safe start; a configured rate always starts there', async () => {
    const store = await openStateStore(':memory:');
    expect(auto.rateLimit.ratePerSec).toBe('auto');
    expect(startRate(auto.rateLimit, await loadLearntRate(store, NOW))).toBe(5);
    await saveLearntRate(store, undefined, { currentRate: 48, holdRate: null }, NOW);
    expect(startRate(auto.rateLimit, await loadLearntRate(store, NOW))).toBe(48);
    expect(startRate(fixed.rateLimit, await loadLearntRate(store, NOW))).toBe(7);
    store.close();
  });

  it('keeps a hold for a day from when it was found, then lets the climb look again', async () => {
    const store = await openStateStore(':memory:');
    await saveLearntRate(store, undefined, { currentRate: 45, holdRate: 45 }, NOW);
    const next = await loadLearntRate(store, NOW + DAY / 2);
    expect(next).toEqual({ ratePerSec: 45, hold: { ratePerSec: 45, at: NOW } });
    // A run that started with that hold and kept it does not renew its age.
    await saveLearntRate(store, next, { currentRate: 45, holdRate: 45 }, NOW + DAY / 2);
    expect(await loadLearntRate(store, NOW + DAY + 1)).toEqual({ ratePerSec: 45 });
    store.close();
  });

  it('ignores a value it cannot read', async () => {
    const store = await openStateStore(':memory:');
    await store.setMeta('queue.learntRate', '{"ratePerSec": -1}');
    expect(await loadLearntRate(store, NOW)).toBeUndefined();
    await store.setMeta('queue.learntRate', 'not json');
    expect(await loadLearntRate(store, NOW)).toBeUndefined();
    store.close();
  });
});
