import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { startTokens } from '../../src/queue/start-tokens.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';

describe('startTokens', () => {
  const config = loadConfig({ env: {}, overrides: { rateLimit: { ratePerSec: 10, burst: 8 } } });

  it.each([
    ['no run before', null, 8],
    ['a run that ended 0.2 s ago', 200, 2],
    ['a run that ended 0.5 s ago', 500, 5],
    ['a run that ended long ago', 60_000, 8],
    ['a clock that went backwards', -5_000, 0],
  ])('%s', async (_name, agoMs, expected) => {
    const store = await openStateStore(':memory:');
    const now = 1_800_000_000_000;
    if (agoMs !== null) await store.setMeta('queue.lastRequestAt', String(now - agoMs));
    expect(await startTokens(store, config.rateLimit, now)).toBeCloseTo(expected, 6);
    store.close();
  });
});
