// What a run's queue leaves the next one: when it sent its last request, and (auto) the rate it learnt.
import { describe, expect, it } from 'vitest';
import { loadQueueStart, saveQueueEnd } from '../../src/queue/carry-over.ts';
import type { QueueMeta } from '../../src/queue/queue-meta.ts';

const NOW = 1_800_000_000_000;

function meta(): QueueMeta & { readonly values: Map<string, string> } {
  const values = new Map<string, string>();
  return {
    values,
    getMeta: async (key) => values.get(key),
    setMeta: async (key, value) => void values.set(key, value),
  };
}

describe('queue carry-over', () => {
  const auto = { ratePerSec: 'auto', startPerSec: 5, burst: 10 } as const;
  const fixed = { ratePerSec: 20, startPerSec: 5, burst: 10 } as const;
  const stats = { requests: 3, currentRate: 40, holdRate: null };

  it('a new state db: nothing learnt, a full bucket', async () => {
    expect(await loadQueueStart(meta(), auto, NOW)).toEqual({ learnt: undefined, startTokens: 10 });
  });

  it('auto: the next run starts at the rate reached, with what the marketplace refilled since', async () => {
    const m = meta();
    await saveQueueEnd(m, auto, await loadQueueStart(m, auto, NOW), stats, NOW);
    // 0.1 s at the learnt 40/s: 4 tokens.
    expect(await loadQueueStart(m, auto, NOW + 100)).toEqual({ learnt: { ratePerSec: 40 }, startTokens: 4 });
  });

  it('a configured rate: no rate is learnt or read, the last request is still kept', async () => {
    const m = meta();
    await saveQueueEnd(m, fixed, { learnt: undefined, startTokens: 10 }, stats, NOW);
    expect([...m.values.keys()]).toEqual(['queue.lastRequestAt']);
    m.values.set('queue.learntRate', '{"ratePerSec": 99}');
    // 0.1 s at the configured 20/s: 2 tokens.
    expect(await loadQueueStart(m, fixed, NOW + 100)).toEqual({ learnt: undefined, startTokens: 2 });
  });

  it('a run that sent nothing leaves nothing', async () => {
    const m = meta();
    await saveQueueEnd(m, auto, { learnt: undefined, startTokens: 10 }, { ...stats, requests: 0 }, NOW);
    expect(m.values.size).toBe(0);
  });
});
