// Probe, then follow: the gate for routes the API document does not promise, with a state db stand-in.
import { describe, expect, it } from 'vitest';
import type { CapabilityRecord } from '../../src/state/records.ts';
import type { CapabilityStore } from '../../src/capabilities/capability-store.ts';
import { CapabilityGate, type ProbedCall } from '../../src/capabilities/gate.ts';
import { CAPABILITIES } from '../../src/capabilities/names.ts';

const NAME = CAPABILITIES.topUpBulkUpdate;

function memory(initial?: boolean): CapabilityStore & { readonly records: Map<string, CapabilityRecord> } {
  const records = new Map<string, CapabilityRecord>();
  if (initial !== undefined) records.set(NAME, { name: NAME, usable: initial, detail: null, learntAt: 0 });
  return {
    records,
    getCapability: (name) => records.get(name),
    setCapability: (name, usable, detail = null) => void records.set(name, { name, usable, detail, learntAt: 1 }),
  };
}

class Refused extends Error {}

/** A call that records what ran; `fails` decides the attempt's fate. */
function call(log: string[], fails: 'no' | 'refused' | 'other', proberFallsBack = true): ProbedCall<string> {
  return {
    capability: NAME,
    attempt: async () => {
      log.push('attempt');
      await new Promise((r) => setTimeout(r, 5));
      if (fails === 'refused') throw new Refused('404');
      if (fails === 'other') throw new Error('503');
      return 'sent';
    },
    refusal: async (err) => (err instanceof Refused ? 'not served' : null),
    fallback: async () => {
      log.push('fallback');
      return 'fell back';
    },
    proberFallsBack,
  };
}

describe('capability gate', () => {
  it('a route known to be served is not probed again: calls go side by side, and nothing is learnt anew', async () => {
    const mem = memory(true);
    const gate = new CapabilityGate(mem);
    let started = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const c: ProbedCall<string> = {
      ...call([], 'no'),
      attempt: async () => {
        started++;
        await held;
        return 'sent';
      },
    };
    const both = Promise.all([gate.call(c), gate.call(c)]);
    // Both attempts are under way before either answers: no probe holds the second back.
    await new Promise((r) => setImmediate(r));
    expect(started).toBe(2);
    release();
    expect(await both).toEqual(['sent', 'sent']);
    expect(mem.records.get(NAME)?.learntAt).toBe(0);
  });

  it('an unknown route: the first call probes alone, the others wait and follow its success', async () => {
    const mem = memory();
    const gate = new CapabilityGate(mem);
    const log: string[] = [];
    const first = gate.call(call(log, 'no'));
    const second = gate.call(call(log, 'no'));
    expect(await first).toBe('sent');
    expect(await second).toBe('sent');
    expect(log).toEqual(['attempt', 'attempt']);
    expect(mem.records.get(NAME)?.usable).toBe(true);
  });

  it('a refusal marks the route unusable: prober and waiters fall back, the waiters without trying', async () => {
    const mem = memory();
    const gate = new CapabilityGate(mem);
    const log: string[] = [];
    const results = await Promise.all([gate.call(call(log, 'refused')), gate.call(call(log, 'refused'))]);
    expect(results).toEqual(['fell back', 'fell back']);
    expect(log).toEqual(['attempt', 'fallback', 'fallback']);
    expect(mem.records.get(NAME)).toMatchObject({ usable: false, detail: 'not served' });
  });

  it('a prober that must not fall back fails with the refusal; the waiters fall back', async () => {
    const gate = new CapabilityGate(memory());
    const log: string[] = [];
    const first = gate.call(call(log, 'refused', false));
    const second = gate.call(call(log, 'refused', false));
    await expect(first).rejects.toThrow(Refused);
    expect(await second).toBe('fell back');
    expect(log).toEqual(['attempt', 'fallback']);
  });

  it('a failure that is no refusal leaves the route unknown, and the next call probes again', async () => {
    const mem = memory();
    const gate = new CapabilityGate(mem);
    const log: string[] = [];
    const first = gate.call(call(log, 'other'));
    const second = gate.call(call(log, 'no'));
    await expect(first).rejects.toThrow('503');
    expect(await second).toBe('sent');
    expect(log).toEqual(['attempt', 'attempt']);
    expect(mem.records.get(NAME)?.usable).toBe(true);
  });

  it('a route known unusable is not tried; one known usable that now refuses flips', async () => {
    const log: string[] = [];
    expect(await new CapabilityGate(memory(false)).call(call(log, 'no'))).toBe('fell back');
    expect(log).toEqual(['fallback']);
    const mem = memory(true);
    expect(await new CapabilityGate(mem).call(call(log, 'refused'))).toBe('fell back');
    expect(mem.records.get(NAME)?.usable).toBe(false);
  });
});
