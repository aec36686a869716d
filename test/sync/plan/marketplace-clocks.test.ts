// The marketplace's two clocks as offersync learns them: a write's stamp by its clock, the offsets a run's writes
// show (the largest per clock), how they are kept, and the cutoff of the next incremental read.
import { describe, expect, it } from 'vitest';
import type { RemoteOffer } from '../../../src/marketplace/marketplace-client.ts';
import {
  CUTOFF_SLACK_MS,
  ClockSamples,
  incrementalCutoff,
  loadClockOffsets,
  saveClockOffsets,
  stampOfWrite,
  UNLEARNT_OFFSET_MS,
} from '../../../src/sync/plan/marketplace-clocks.ts';

const remote = (stamps: { createdAt?: number; updatedAt?: number }): RemoteOffer => ({
  id: 1,
  externalId: 'x',
  fields: {},
  ...stamps,
});

describe('incrementalCutoff', () => {
  const HOUR = 3_600_000;
  it.each([
    ['both clocks on time', { create: 0, update: 0 }, -CUTOFF_SLACK_MS],
    ['updates stamped an hour behind', { create: 0, update: -HOUR }, -HOUR - CUTOFF_SLACK_MS],
    ['updates stamped an hour ahead: the create clock bounds it', { create: 0, update: HOUR }, -CUTOFF_SLACK_MS],
    ['both ahead of ours', { create: 2 * HOUR, update: HOUR }, HOUR - CUTOFF_SLACK_MS],
    ['the update clock not learnt yet', { create: 0 }, UNLEARNT_OFFSET_MS - CUTOFF_SLACK_MS],
    ['nothing learnt', {}, UNLEARNT_OFFSET_MS - CUTOFF_SLACK_MS],
  ])('%s', (_what, offsets, fromStart) => {
    expect(incrementalCutoff(10 * HOUR, offsets)).toBe(10 * HOUR + fromStart);
  });
});

describe('stampOfWrite', () => {
  it("a create's created_at, by the create clock", () => {
    expect(stampOfWrite(true, remote({ createdAt: 5000, updatedAt: 5000 }), null)).toEqual({
      clock: 'create',
      stampMs: 5000,
    });
    expect(stampOfWrite(true, remote({ updatedAt: 5000 }), null)).toBeUndefined();
  });

  it("an update's updated_at, by the update clock, only when the write moved it", () => {
    expect(stampOfWrite(false, remote({ createdAt: 1, updatedAt: 9000 }), 4000)).toEqual({
      clock: 'update',
      stampMs: 9000,
    });
    // A row the update did not change keeps its old stamp: nothing of the clock's now.
    expect(stampOfWrite(false, remote({ updatedAt: 4000 }), 4000)).toBeUndefined();
    expect(stampOfWrite(false, remote({}), 4000)).toBeUndefined();
  });
});

describe('ClockSamples', () => {
  it('keeps per clock the largest stamp minus local time (each is a lower bound of the offset)', () => {
    const s = new ClockSamples();
    expect(s.offsets).toEqual({});
    s.note('update', 1_000, 3_601_000); // answered late: a looser bound
    s.note('update', 2_000, 3_601_500);
    s.note('create', 3_601_000, 3_601_200);
    expect(s.offsets).toEqual({ update: -3_599_500, create: -200 });
  });
});

describe('loadClockOffsets / saveClockOffsets', () => {
  it('keep what a run learnt, replacing the figure before; a clock the run did not see stays', async () => {
    const meta = new Map<string, string>();
    const store = {
      getMeta: async (k: string) => meta.get(k),
      setMeta: async (k: string, v: string) => void meta.set(k, v),
    };
    expect(await loadClockOffsets(store)).toEqual({});
    await saveClockOffsets(store, { create: -120.4, update: -3_600_300 });
    await saveClockOffsets(store, { update: -7_200_100 });
    expect(await loadClockOffsets(store)).toEqual({ create: -120, update: -7_200_100 });
    meta.set('clock.offset-ms.create', 'garbage');
    expect(await loadClockOffsets(store)).toEqual({ update: -7_200_100 });
  });
});
