// What a run's queue leaves the next one on the same state db: when it sent its last request (startTokens) and,
// with `ratePerSec: auto`, the rate it learnt (learnt-rate.ts). Read once before the queue is made, written once
// after a run that sent requests.
import { type LearntRate, loadLearntRate, saveLearntRate } from './learnt-rate.ts';
import type { QueueMeta, RateStartSettings } from './queue-meta.ts';
import type { RequestQueueStats } from './request-queue.ts';
import { saveLastRequest, startTokens } from './start-tokens.ts';

export interface QueueStart {
  /** The rate an auto rate starts from; undefined for a configured rate, or on a new state db. */
  readonly learnt: LearntRate | undefined;
  readonly startTokens: number;
}

export async function loadQueueStart(meta: QueueMeta, settings: RateStartSettings, now: number): Promise<QueueStart> {
  const learnt = settings.ratePerSec === 'auto' ? await loadLearntRate(meta, now) : undefined;
  return { learnt, startTokens: await startTokens(meta, settings, now, learnt) };
}

export async function saveQueueEnd(
  meta: QueueMeta,
  settings: Pick<RateStartSettings, 'ratePerSec'>,
  start: QueueStart,
  stats: Pick<RequestQueueStats, 'requests' | 'currentRate' | 'holdRate'>,
  now: number,
): Promise<void> {
  if (stats.requests <= 0) return;
  await saveLastRequest(meta, now);
  if (settings.ratePerSec === 'auto') await saveLearntRate(meta, start.learnt, stats, now);
}
