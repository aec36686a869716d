// The executor's in-flight window: every item run once, in order of start, never more than `limit` at a time, and
// once stopped no item not yet started is begun.
import { describe, expect, it } from 'vitest';
import { forEachLimit } from '../../src/sync/for-each-limit.ts';

/** Resolves each started task only when the test lets it go, so how many run at once is exact. */
function gate() {
  const waiting: (() => void)[] = [];
  let inFlight = 0;
  let most = 0;
  const started: number[] = [];
  const fn = (n: number) =>
    new Promise<void>((resolve) => {
      started.push(n);
      most = Math.max(most, ++inFlight);
      waiting.push(() => {
        inFlight--;
        resolve();
      });
    });
  const releaseAll = async () => {
    while (waiting.length > 0) {
      for (const r of waiting.splice(0)) r();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { fn, started, most: () => most, waiting, releaseAll };
}

describe('forEachLimit', () => {
  it('runs every item once, at most limit at a time', async () => {
    const g = gate();
    const done = forEachLimit([1, 2, 3, 4, 5, 6, 7], 3, g.fn);
    await new Promise((r) => setImmediate(r));
    expect(g.started).toEqual([1, 2, 3]);
    await g.releaseAll();
    await done;
    expect(g.started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(g.most()).toBe(3);
  });

  it('starts no more workers than items, and does nothing for none', async () => {
    const g = gate();
    const done = forEachLimit([1, 2], 64, g.fn);
    await new Promise((r) => setImmediate(r));
    expect(g.started).toEqual([1, 2]);
    await g.releaseAll();
    await done;
    await forEachLimit([], 4, g.fn);
    expect(g.started).toEqual([1, 2]);
  });

  it('begins no item once stopped, and lets the started ones finish', async () => {
    const g = gate();
    const stop = new AbortController();
    const done = forEachLimit([1, 2, 3, 4, 5], 2, g.fn, stop.signal);
    await new Promise((r) => setImmediate(r));
    stop.abort();
    await g.releaseAll();
    await done;
    expect(g.started).toEqual([1, 2]);
  });
});
