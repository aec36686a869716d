// A refused capability is asked again after the re-probe interval.
import { describe, expect, it } from 'vitest';
import { capabilityUsable } from '../../src/state/capability-reprobe.ts';

const H = 3_600_000;
const NOW = 1_800_000_000_000;

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
