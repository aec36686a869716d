// A small catalogue's reconcile runs in V8's efficiency mode: read back through V8's own answer.
import { setFlagsFromString } from 'node:v8';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { favourThroughputOverLatency } from '../../src/cli/v8-efficiency.ts';

setFlagsFromString('--allow-natives-syntax');
// V8 reads --allow-natives-syntax when it parses: a function made now may ask it.
const efficiencyMode = new Function('return %IsEfficiencyModeEnabled()') as () => boolean;

// Off around the test: a reconcile run earlier in this worker may have turned it on.
beforeEach(() => {
  setFlagsFromString('--no-efficiency-mode');
});
afterEach(() => {
  setFlagsFromString('--no-efficiency-mode');
});

describe('V8 efficiency mode', () => {
  it('is on after favourThroughputOverLatency', () => {
    expect(efficiencyMode()).toBe(false);
    favourThroughputOverLatency();
    expect(efficiencyMode()).toBe(true);
  });
});
