// What the fleet-engines bench asks of a work-distribution engine in one replica process.
import type { RunShape } from './seller-writes.ts';

export interface EngineOptions {
  readonly url: string;
  /** This replica's name: the prefix of its run ids (r1, r2...). */
  readonly writer: string;
  /** Our lease TTL; pg-boss's heartbeatSeconds is set to the same (its floor is 10 s). */
  readonly ttlMs: number;
  readonly shape: RunShape;
  /** How many sellers a replica may run at once (pg-boss's localConcurrency). */
  readonly capacity: number;
}

export interface RunningEngine {
  /** The sellers as the bench's table lists them now (only ever grows). */
  sellersChanged(sellers: readonly string[]): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}
