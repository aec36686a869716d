// What the state db learnt of the routes the API document does not promise: each capability read as usable,
// unusable or never tried, and a refusal older than reprobeAfterMs read as never tried so the route is probed again.
import { describe, expect, it } from 'vitest';
import type { CapabilityRecord } from '../../src/state/records.ts';
import {
  CAPABILITIES,
  type CapabilityName,
  readCapabilities,
  reprobingMemory,
  UNKNOWN_CAPABILITIES,
} from '../../src/sync/capabilities.ts';

const rec = (name: string, usable: boolean, learntAt = 0): CapabilityRecord =>
  ({ name, usable, detail: null, learntAt }) as CapabilityRecord;

describe('readCapabilities', () => {
  it('reads each capability by its own name', async () => {
    const known = new Map<CapabilityName, CapabilityRecord>([
      [CAPABILITIES.accountUpdate, rec(CAPABILITIES.accountUpdate, true)],
      [CAPABILITIES.accountBulkRemove, rec(CAPABILITIES.accountBulkRemove, false)],
      [CAPABILITIES.accountRecreate, rec(CAPABILITIES.accountRecreate, false)],
    ]);
    expect(await readCapabilities((n) => known.get(n))).toEqual({
      accountUpdate: 'usable',
      accountBulkRemove: 'unusable',
      topUpBulkUpdate: 'unknown',
      itemBulkUpdate: 'unknown',
      itemBulkRemove: 'unknown',
      topUpBulkRemove: 'unknown',
      itemArchiveByPatch: 'unknown',
      topUpArchiveByPatch: 'unknown',
      itemDelete: 'unknown',
      topUpDelete: 'unknown',
      accountRecreate: 'unusable',
    });
    const all = new Map(Object.values(CAPABILITIES).map((n) => [n, rec(n, n !== CAPABILITIES.accountUpdate)]));
    expect(await readCapabilities((n) => all.get(n))).toEqual({
      accountUpdate: 'unusable',
      accountBulkRemove: 'usable',
      topUpBulkUpdate: 'usable',
      itemBulkUpdate: 'usable',
      itemBulkRemove: 'usable',
      topUpBulkRemove: 'usable',
      itemArchiveByPatch: 'usable',
      topUpArchiveByPatch: 'usable',
      itemDelete: 'usable',
      topUpDelete: 'usable',
      accountRecreate: 'usable',
    });
    expect(await readCapabilities(() => undefined)).toEqual(UNKNOWN_CAPABILITIES);
    expect(new Set(Object.values(UNKNOWN_CAPABILITIES))).toEqual(new Set(['unknown']));
  });
});

describe('reprobingMemory', () => {
  function memory() {
    const m = new Map<string, CapabilityRecord>();
    const sets: unknown[][] = [];
    return {
      m,
      sets,
      getCapability: (n: string) => m.get(n),
      setCapability: (n: string, usable: boolean, detail?: string | null) => {
        sets.push([n, usable, detail]);
      },
    };
  }

  it('reads a refusal as never tried once it is older than reprobeAfterMs, a success always as usable', async () => {
    const store = memory();
    store.m.set('refused', rec('refused', false, 1000));
    store.m.set('served', rec('served', true, 1000));
    let now = 1000 + 499;
    const mem = reprobingMemory(store, () => now, 500);
    expect(await mem.getCapability('refused')).toEqual(rec('refused', false, 1000));
    expect(await mem.getCapability('missing')).toBeUndefined();
    now = 1500;
    expect(await mem.getCapability('refused')).toBeUndefined();
    now = 10_000_000;
    expect(await mem.getCapability('served')).toEqual(rec('served', true, 1000));
  });

  it('writes verdicts through to the state db', () => {
    const store = memory();
    reprobingMemory(store, () => 0, 1).setCapability('route', false, 'HTTP 405');
    expect(store.sets).toEqual([['route', false, 'HTTP 405']]);
  });
});
