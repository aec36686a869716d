// The rate `ratePerSec: auto` learnt, kept for the next run.
import { describe, expect, it } from 'vitest';
import { loadLearntRate, saveLearntRate, startRate } from '../../src/queue/learnt-rate.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';

const NOW = 1_800_000_000_000;
const DAY = 24 * 60 * 60 * 1000;
const stats = (currentRate: number, holdRate: number | null) => ({ currentRate, holdRate });

describe('learnt rate', () => {
  const auto = loadConfig({ env: {} });
  const fixed = loadConfig({ env: {}, overrides: { rateLimit: { ratePerSec: 7 } } });

  it('a new state db starts auto at the safe start; a configured rate always starts there', async () => {
    const store = await openStateStore(':memory:');
    expect(auto.rateLimit.ratePerSec).toBe('auto');
    expect(startRate(auto.rateLimit, await loadLearntRate(store, NOW))).toBe(5);
    await saveLearntRate(store, undefined, { currentRate: 48, holdRate: null }, NOW);
    // No hold found: none is written (the state db's format, read by later releases too).
    expect(await store.getMeta('queue.learntRate')).toBe('{"ratePerSec":48}');
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

  it('reads what an earlier run wrote under its key, the run before held below its hold', async () => {
    const store = await openStateStore(':memory:');
    // The key is part of the state db's format: a new release reads what the last one wrote.
    await store.setMeta('queue.learntRate', JSON.stringify({ ratePerSec: 60, hold: { ratePerSec: 45, at: NOW } }));
    expect(await loadLearntRate(store, NOW + 1000)).toEqual({ ratePerSec: 45, hold: { ratePerSec: 45, at: NOW } });
    store.close();
  });

  it('drops a hold a day old to the millisecond, and one it cannot read, keeping the rate', async () => {
    const store = await openStateStore(':memory:');
    const load = async (hold: unknown, now = NOW) => {
      await store.setMeta('queue.learntRate', JSON.stringify({ ratePerSec: 30, hold }));
      return loadLearntRate(store, now);
    };
    expect(await load({ ratePerSec: 20, at: NOW }, NOW + DAY - 1)).toEqual({
      ratePerSec: 20,
      hold: { ratePerSec: 20, at: NOW },
    });
    expect(await load({ ratePerSec: 20, at: NOW }, NOW + DAY)).toEqual({ ratePerSec: 30 });
    expect(await load({ ratePerSec: 0, at: NOW })).toEqual({ ratePerSec: 30 });
    expect(await load({ ratePerSec: 'fast', at: NOW })).toEqual({ ratePerSec: 30 });
    expect(await load({ ratePerSec: 20, at: String(NOW) })).toEqual({ ratePerSec: 30 });
    expect(await load({ ratePerSec: 20 })).toEqual({ ratePerSec: 30 });
    store.close();
  });

  it('a run that started with no hold and found one keeps it from now', async () => {
    const store = await openStateStore(':memory:');
    await saveLearntRate(store, { ratePerSec: 5 }, { currentRate: 12, holdRate: 13 }, NOW);
    expect(await loadLearntRate(store, NOW)).toEqual({ ratePerSec: 12, hold: { ratePerSec: 13, at: NOW } });
    // A new hold, lower than the one the run started with: found now.
    await saveLearntRate(store, { ratePerSec: 12, hold: { ratePerSec: 13, at: NOW } }, stats(10, 11), NOW + 5000);
    expect(await loadLearntRate(store, NOW + 5000)).toEqual({
      ratePerSec: 10,
      hold: { ratePerSec: 11, at: NOW + 5000 },
    });
    store.close();
  });

  it('ignores a value it cannot read', async () => {
    const store = await openStateStore(':memory:');
    await store.setMeta('queue.learntRate', '{"ratePerSec": -1}');
    expect(await loadLearntRate(store, NOW)).toBeUndefined();
    await store.setMeta('queue.learntRate', 'not json');
    expect(await loadLearntRate(store, NOW)).toBeUndefined();
    for (const bad of ['{"ratePerSec": 0}', '{"ratePerSec": 1e999}', '{"ratePerSec": "40"}', '40', 'null']) {
      await store.setMeta('queue.learntRate', bad);
      expect(await loadLearntRate(store, NOW)).toBeUndefined();
    }
    store.close();
  });
});
