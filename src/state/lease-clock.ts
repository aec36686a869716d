// The clock a writer lease's expiry is set and judged by in a sqlite file. Every process that opens the file runs
// on one machine, so the machine's monotonic clock serves them all: a wall-clock step (NTP, a VM resumed, a person
// setting the date) neither hands a live holder's lease to another process nor expires it under its holder. It
// starts again at each boot, so a lease written in an earlier boot counts as expired, whatever it says.
import { readFileSync } from 'node:fs';

export interface LeaseClock {
  /** ms; comparable only with readings of the same era. */
  now(): number;
  /** The boot this clock counts from (Linux boot_id); '' when the clock is the wall clock. */
  readonly era: string;
}

/** The wall clock (or a test's fake): the era is ''. */
export function wallLeaseClock(now: () => number): LeaseClock {
  return { now, era: '' };
}

let host: LeaseClock | undefined;

/** CLOCK_MONOTONIC, shared by every process of this boot; the wall clock where no boot id tells boots apart. */
export function hostLeaseClock(): LeaseClock {
  if (host === undefined) {
    const era = bootId();
    host = era === '' ? wallLeaseClock(Date.now) : { now: () => Number(process.hrtime.bigint() / 1_000_000n), era };
  }
  return host;
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}
