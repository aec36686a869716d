// What the state db learnt of the routes the API document does not promise: each capability read as usable,
// unusable or never tried, as the planner routes by it.
import { describe, expect, it } from 'vitest';
import type { CapabilityRecord } from '../../src/state/records.ts';
import { CAPABILITIES, type CapabilityName } from '../../src/capabilities/names.ts';
import { readCapabilities, readReprobedCapabilities, UNKNOWN_CAPABILITIES } from '../../src/capabilities/verdicts.ts';

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
      itemGameUpdate: 'unknown',
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
      itemGameUpdate: 'usable',
    });
    expect(await readCapabilities(() => undefined)).toEqual(UNKNOWN_CAPABILITIES);
    expect(new Set(Object.values(UNKNOWN_CAPABILITIES))).toEqual(new Set(['unknown']));
  });

  it('reads a refusal older than reprobeAfterMs as never tried, as the gate will', async () => {
    const known = new Map<string, CapabilityRecord>([
      [CAPABILITIES.accountUpdate, rec(CAPABILITIES.accountUpdate, false, 1000)],
      [CAPABILITIES.itemDelete, rec(CAPABILITIES.itemDelete, false, 0)],
      [CAPABILITIES.topUpDelete, rec(CAPABILITIES.topUpDelete, true, 0)],
    ]);
    const store = { getCapability: (n: string) => known.get(n), setCapability: () => undefined };
    const read = await readReprobedCapabilities(store, () => 1500, 1000);
    expect(read.accountUpdate).toBe('unusable');
    expect(read.itemDelete).toBe('unknown');
    expect(read.topUpDelete).toBe('usable');
    expect(read.itemBulkUpdate).toBe('unknown');
  });
});
