// The last run a guard stopped, kept in the state db's meta so that `status`, the status page and /readyz can say
// so until a run gets through (a daemon carries on with its other work meanwhile).
import type { StateStore } from '../../state/state-store.ts';

export const GUARD_STOP_KEY = 'guard.stopped';

export interface GuardStop {
  readonly runId: string;
  /** ISO time of the run. */
  readonly at: string;
  /** The guard's message and what it held back, as the run's summary says them. */
  readonly messages: readonly string[];
}

export async function recordGuardStop(store: Pick<StateStore, 'setMeta'>, stop: GuardStop | null): Promise<void> {
  await store.setMeta(GUARD_STOP_KEY, stop ? JSON.stringify(stop) : '');
}

export async function readGuardStop(store: Pick<StateStore, 'getMeta'>): Promise<GuardStop | null> {
  const text = await store.getMeta(GUARD_STOP_KEY);
  if (!text) return null;
  try {
    const v = JSON.parse(text) as Partial<GuardStop>;
    if (typeof v.runId !== 'string' || typeof v.at !== 'string' || !Array.isArray(v.messages)) return null;
    return { runId: v.runId, at: v.at, messages: v.messages.filter((m): m is string => typeof m === 'string') };
  } catch {
    return null;
  }
}
