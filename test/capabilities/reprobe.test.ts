// A refused capability is asked again after the re-probe interval: a refusal older than reprobeAfterMs reads as
// never tried, so the route is probed again.
import { describe, expect, it } from 'vitest';
import { capabilityUsable, reprobeAt, reprobingMemory } from '../../src/capabilities/reprobe.ts';
import type { CapabilityRecord } from '../../src/state/records.ts';

const H = 3_600_000;
const NOW = 1_800_000_000_000;

const rec = (name: string, usable: boolean, learntAt = 0): CapabilityRecord =>
  ({ name, usable, detail: null, learntAt }) as CapabilityRecord;

describe('capabilityUsable', () => {
  it.each([
    ['never tried', undefined, undefined],
    ['served', { usable: true, learntAt: NOW - 1000 * H }, true],
    ['refused an hour ago', { usable: false, learntAt: NOW - H }, false],
    ['refused just under a day ago', { usable: false, learntAt: NOW - 24 * H + 1 }, false],
    ['refused a day ago: ask again', { usable: false, learntAt: NOW - 24 * H }, undefined],
  ] as const)('%s', (_name, rec, want) => {
    expect(capabilityUsable(rec, NOW, 24 * H)).toBe(want);
  });
});

describe('reprobeAt', () => {
  it('is when a refusal is asked again; never for a route found served', () => {
    expect(reprobeAt({ usable: false, learntAt: NOW }, 24 * H)).toBe(NOW + 24 * H);
    expect(reprobeAt({ usable: true, learntAt: NOW }, 24 * H)).toBeNull();
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
