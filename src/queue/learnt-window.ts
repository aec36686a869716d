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
  if (typeof raw !== 'object' || raw === null) return { limit: null, bannedUntil: 0 };
  const { limit, bannedUntil } = raw as { limit?: unknown; bannedUntil?: unknown };
  return {
    limit: isWindowLimit(limit) ? { requests: limit.requests, seconds: limit.seconds } : null,
    bannedUntil: typeof bannedUntil === 'number' && Number.isFinite(bannedUntil) ? bannedUntil : 0,
  };
}

/** Keeps the stricter of what is stored and `state` (another process may have learnt meanwhile). */
export async function saveLearntWindow(meta: QueueMeta, scope: string, state: WindowBudgetState): Promise<void> {
  const stored = await loadLearntWindow(meta, scope);
  const merged = {
    limit: stricterWindow(stored.limit, state.limit),
    bannedUntil: Math.max(stored.bannedUntil, state.bannedUntil),
  };
  if (merged.limit === null && merged.bannedUntil === 0) return;
  await meta.setMeta(key(scope), JSON.stringify(merged));
}
