// The short soak: 20 seconds of `npm run soak`, the daemon and the sandbox as child processes on
// 127.0.0.1, under random edits, faults, 429 storms, kills and sales; no violation at the end.
import { describe, expect, it } from 'vitest';
import { runSoak } from '../soak/soak.ts';

describe('soak', () => {
  it('20 seconds of edits, faults, 429 storms, SIGKILLs and sales end converged', async () => {
    const r = await runSoak({ durationMs: 20_000, seed: 20261123 });
    expect(r.violations).toEqual([]);
    expect(r.counts['catalogue edits']).toBeGreaterThan(5);
    expect(r.counts['daemon SIGKILLs']).toBeGreaterThan(0);
  }, 300_000);
});
