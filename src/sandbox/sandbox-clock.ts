// One clock for the whole store, in microseconds: every write gets a timestamp strictly greater than
// the one before, so no two writes share an updated_at and a -updated_at list has no ties.

export class MonotonicClock {
  constructor(private last = 0) {}

  next(): number {
    this.last = Math.max(Date.now() * 1000, this.last + 1);
    return this.last;
  }

  get lastValue(): number {
    return this.last;
  }
}

/** ISO 8601 with microseconds and 'Z', e.g. 2024-05-01T12:00:00.123456Z. */
export function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const micro = String(us % 1000).padStart(3, '0');
  return new Date(ms).toISOString().replace(/Z$/, `${micro}Z`);
}

export function epochSeconds(us: number): number {
  return Math.floor(us / 1_000_000);
}

/**
 * The updated_at an update writes when the marketplace's database keeps another zone than its application:
 * the true time shifted back by the lag (negative: ahead), while creates keep the application's true time.
 */
export function updateStampUs(nowUs: number, lagSec: number): number {
  return nowUs - Math.round(lagSec * 1_000_000);
}
