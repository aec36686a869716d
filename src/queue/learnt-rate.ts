// The request rate `rateLimit.ratePerSec: auto` learnt, kept in the state db (meta) so that the next run
// starts where this one ended instead of at the safe start. A hold (just below a 429) is kept for a day,
// then dropped, so that a marketplace that raised its limit is found again.
import type { QueueMeta, RateStartSettings } from './queue-meta.ts';

const KEY = 'queue.learntRate';
const HOLD_KEPT_MS = 24 * 60 * 60 * 1000;

export interface LearntRate {
  /** The rate the last run ended at. */
  readonly ratePerSec: number;
  /** Just below its last 429, and when that hold was found (epoch ms). */
  readonly hold?: { readonly ratePerSec: number; readonly at: number };
}

function positive(v: unknown): v is number {
  return Number.isFinite(v) && (v as number) > 0; // isFinite is false for anything not a number
}

export async function loadLearntRate(meta: QueueMeta, now: number): Promise<LearntRate | undefined> {
  let raw: unknown;
  try {
    raw = JSON.parse((await meta.getMeta(KEY)) ?? 'null');
  } catch {
    return undefined; // unreadable: start safe
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { ratePerSec, hold } = raw as { ratePerSec?: unknown; hold?: { ratePerSec?: unknown; at?: unknown } };
  if (!positive(ratePerSec)) return undefined;
  const keptHold =
    hold && positive(hold.ratePerSec) && positive(hold.at) && now - hold.at < HOLD_KEPT_MS
      ? { ratePerSec: hold.ratePerSec, at: hold.at }
      : undefined;
  return keptHold ? { ratePerSec: Math.min(ratePerSec, keptHold.ratePerSec), hold: keptHold } : { ratePerSec };
}

/** What the queue starts with: the configured rate, else the learnt one, else the safe start. */
export function startRate(
  settings: Pick<RateStartSettings, 'ratePerSec' | 'startPerSec'>,
  learnt: LearntRate | undefined,
): number {
  const { ratePerSec, startPerSec } = settings;
  return ratePerSec === 'auto' ? (learnt?.ratePerSec ?? startPerSec) : ratePerSec;
}

/** After a run: the rate reached, and the hold (its time kept when it is the one the run started with). */
export async function saveLearntRate(
  meta: QueueMeta,
  before: LearntRate | undefined,
  stats: { readonly currentRate: number; readonly holdRate: number | null },
  now: number,
): Promise<void> {
  const hold =
    stats.holdRate === null
      ? undefined
      : { ratePerSec: stats.holdRate, at: before?.hold?.ratePerSec === stats.holdRate ? before.hold.at : now };
  await meta.setMeta(KEY, JSON.stringify({ ratePerSec: stats.currentRate, ...(hold ? { hold } : {}) }));
}
