// The tokens a new queue may start with, from when the last run on this state db sent its last request.
import { type LearntRate, startRate } from './learnt-rate.ts';
import type { QueueMeta, RateStartSettings } from './queue-meta.ts';

const LAST_REQUEST_KEY = 'queue.lastRequestAt';

/**
 * Tokens a new queue may start with: only what the marketplace can have refilled since the last run on this
 * state db sent its last request (it may have ended with the server's bucket empty). Costs at most
 * burst / rate seconds at start; saves a 429 and its Retry-After pause when runs follow each other.
 */
export async function startTokens(
  meta: QueueMeta,
  settings: RateStartSettings,
  now: number,
  learnt?: LearntRate,
): Promise<number> {
  const last = Number((await meta.getMeta(LAST_REQUEST_KEY)) ?? 0);
  const refilled = ((now - last) / 1000) * startRate(settings, learnt);
  return Math.max(0, Math.min(settings.burst, refilled));
}

/** After a run that sent requests: when it sent its last one (about now), for the next run's startTokens. */
export async function saveLastRequest(meta: QueueMeta, now: number): Promise<void> {
  await meta.setMeta(LAST_REQUEST_KEY, String(now));
}
