// The last run a guard stopped, kept in the state db's meta: written, read back, cleared, and a value that is not
// one read as none (an older offersync's, or a hand edit), so that `status` never fails on it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/state/open-state-store.ts';
import type { KyselyStateStore } from '../../../src/state/kysely-state-store.ts';
import { GUARD_STOP_KEY, readGuardStop, recordGuardStop } from '../../../src/sync/plan/guard-stop.ts';

let store: KyselyStateStore;
beforeEach(async () => {
  store = await openStateStore(':memory:');
});
afterEach(() => store.close());

const STOP = {
  runId: '20261125T051800-abcdef',
  at: '2026-11-25T05:18:00.000Z',
  messages: ['this run would archive 9 of 10 managed offers, more than half of them', 'held back by the guard'],
};

describe('guard stop', () => {
  it('is none until a guard stops a run', async () => {
    expect(await readGuardStop(store)).toBeNull();
  });

  it('reads back as it was recorded, and is none again once a run gets through', async () => {
    await recordGuardStop(store, STOP);
    expect(await readGuardStop(store)).toEqual(STOP);
    await recordGuardStop(store, null);
    expect(await store.getMeta(GUARD_STOP_KEY)).toBe('');
    expect(await readGuardStop(store)).toBeNull();
  });

  it.each([
    ['not JSON', '{'],
    ['no run id', JSON.stringify({ at: STOP.at, messages: [] })],
    ['a run id that is not text', JSON.stringify({ runId: 7, at: STOP.at, messages: [] })],
    ['no time', JSON.stringify({ runId: STOP.runId, messages: [] })],
    ['a time that is not text', JSON.stringify({ runId: STOP.runId, at: 1, messages: [] })],
    ['no messages', JSON.stringify({ runId: STOP.runId, at: STOP.at })],
    ['messages that are not a list', JSON.stringify({ runId: STOP.runId, at: STOP.at, messages: 'stopped' })],
    ['null', 'null'],
  ])('a stored value with %s reads as none', async (_what, text) => {
    await store.setMeta(GUARD_STOP_KEY, text);
    expect(await readGuardStop(store)).toBeNull();
  });

  it('keeps only the messages that are text', async () => {
    await store.setMeta(GUARD_STOP_KEY, JSON.stringify({ ...STOP, messages: ['held back', 3, null, 'see the list'] }));
    expect(await readGuardStop(store)).toEqual({ ...STOP, messages: ['held back', 'see the list'] });
  });
});
