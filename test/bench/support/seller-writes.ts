// The work of one seller as the fleet-engines bench simulates it: runs of journal writes through the real state
// store (journalBegin, the statement a run writes before each marketplace request). Fenced when the store took
// the seller's lease (our balancer), unfenced otherwise (a job queue gives the store no lease).
import { setTimeout as sleep } from 'node:timers/promises';
import { FencedWriteError } from '../../../src/state/kysely-state-store.ts';
import type { StateStore } from '../../../src/state/state-store.ts';

export interface RunShape {
  /** Journal writes per run. */
  readonly writes: number;
  /** Between two writes. */
  readonly writeMs: number;
}

export type RunEnd = 'done' | 'stopped' | 'fenced';

/** One run: its writes, one every shape.writeMs, as run `<writer>#<seller>#<n>`; stops at the signal or the fence. */
export async function runWrites(
  store: StateStore,
  runId: string,
  shape: RunShape,
  signal: AbortSignal,
): Promise<RunEnd> {
  for (let i = 0; i < shape.writes; i++) {
    if (signal.aborted) return 'stopped';
    try {
      await store.journalBegin({ runId, op: 'update', kind: 'item', keys: [`offer-${i}`] });
    } catch (err) {
      if (err instanceof FencedWriteError) return 'fenced';
      throw err;
    }
    await sleep(shape.writeMs, undefined, { signal }).catch(() => undefined);
  }
  return 'done';
}

/** The writer of a run id: `r2#s07#17` -> `r2`. */
export function writerOf(runId: string): string {
  return runId.split('#')[0] ?? runId;
}
