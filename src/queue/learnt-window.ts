// The marketplace's window as learnt from its 429 (or its ban), kept in the state db under the scope every seller
// behind the same address shares (`StateStore.getSharedMeta`), so that no later run, and no other seller's
// process on the same state db, meets that 429 again.
import type { QueueMeta } from './queue-meta.ts';
import type { WindowBudgetState } from './window-budget.ts';
import { isWindowLimit, stricterWindow } from './window-limit.ts';

function key(scope: string): string {
  return `queue.window.${scope}`;
}

export async function loadLearntWindow(meta: QueueMeta, scope: string): Promise<WindowBudgetState> {
  let raw: unknown;
  try {
    raw = JSON.parse((await meta.getMeta(key(scope))) ?? 'null');
  } catch {
    raw = null; // unreadable: as if none was learnt
  }
  if (typeof raw !== 'object' || raw === null) return { limit: null, bannedUntil: 0, recent: [] };
  const { limit, bannedUntil, recent } = raw as { limit?: unknown; bannedUntil?: unknown; recent?: unknown };
  const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  return {
    limit: isWindowLimit(limit) ? { requests: limit.requests, seconds: limit.seconds } : null,
    bannedUntil: finite(bannedUntil) ? bannedUntil : 0,
    recent: Array.isArray(recent) ? recent.filter(finite) : [],
  };
}

/**
 * Keeps the stricter of what is stored and `state` (another process may have learnt meanwhile), the later ban,
 * and the requests `state` sent last (each process saves its own when it ends).
 */
export async function saveLearntWindow(meta: QueueMeta, scope: string, state: WindowBudgetState): Promise<void> {
  const stored = await loadLearntWindow(meta, scope);
  const merged = {
    limit: stricterWindow(stored.limit, state.limit),
    bannedUntil: Math.max(stored.bannedUntil, state.bannedUntil),
    recent: state.recent,
  };
  if (merged.limit === null && merged.bannedUntil === 0) return;
  await meta.setMeta(key(scope), JSON.stringify(merged));
}
