// Requests per route and outcome, for tests and the demo's summary.
import type { SandboxCounters } from './sandbox-options.ts';

export class Counters {
  private c: SandboxCounters = { total: 0, writes: 0, rateLimited: 0, byRoute: {} };

  /** outcome: the status code, or "dropped" / "lost" when the socket was destroyed. */
  record(key: string, outcome: number | 'dropped' | 'lost'): void {
    this.c.total++;
    if (outcome === 429) this.c.rateLimited++;
    this.c.byRoute[key] ??= {};
    const route = this.c.byRoute[key];
    route[String(outcome)] = (route[String(outcome)] ?? 0) + 1;
  }

  /** A request that changed the store (counted even when its answer is then lost). */
  wrote(): void {
    this.c.writes++;
  }

  snapshot(): SandboxCounters {
    return structuredClone(this.c);
  }

  reset(): void {
    this.c = { total: 0, writes: 0, rateLimited: 0, byRoute: {} };
  }
}
