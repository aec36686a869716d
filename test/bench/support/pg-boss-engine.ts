// Bench-only adapter: the same seller work on pg-boss (npm pg-boss, on the same PostgreSQL), the way a job queue
// would run it: one job per run, `stately` queue with singletonKey = seller (at most one run active and one
// queued per seller: a trigger during a run folds into one more run after it, as our daemon does), every
// replica sending each seller's schedule tick (duplicates dropped by the policy), jobs kept alive by pg-boss's
// per-job heartbeat and taken back by its supervisor when a heartbeat stops. A job gives its handler no lease:
// the journal writes go through the store unfenced, and the handler stops at job.signal (aborted when pg-boss's
// heartbeat finds the job's claim gone).
import { PgBoss } from 'pg-boss';
import type { PostgresStateDatabase } from '../../../src/state/postgres-state-database.ts';
import { openPostgresStateStore } from '../../../src/state/open-state-store.ts';
import type { StateStore } from '../../../src/state/state-store.ts';
import type { EngineOptions, RunningEngine } from './engine.ts';
import { runWrites } from './seller-writes.ts';

export const QUEUE = 'seller-run';
/** How often each replica sends every seller's tick (our daemon's schedule.tick, shortened). */
const TICK_MS = 1_000;

interface RunJob {
  readonly seller: string;
}

/** pg-boss tuned for fast detection: its supervisor and monitor every second, polling every half second. */
export function bossOptions(url: string) {
  return { connectionString: url, superviseIntervalSeconds: 1, monitorIntervalSeconds: 1, schedule: false };
}

/** The queue, made once by the bench before the replicas start. */
export async function createRunQueue(url: string, ttlMs: number): Promise<void> {
  const boss = new PgBoss(bossOptions(url));
  boss.on('error', () => undefined);
  await boss.start();
  await boss.createQueue(QUEUE, {
    policy: 'stately',
    heartbeatSeconds: Math.max(10, Math.round(ttlMs / 1000)),
    // A run may take long (a full sweep of a big catalogue): expiry is not the failure detector here.
    expireInSeconds: 3_600,
    retryLimit: 1_000,
    retryDelay: 0,
  });
  await boss.stop({ graceful: false });
}

export async function startPgBossEngine(database: PostgresStateDatabase, o: EngineOptions): Promise<RunningEngine> {
  const boss = new PgBoss(bossOptions(o.url));
  boss.on('error', () => undefined);
  const stores = new Map<string, Promise<StateStore>>();
  const storeOf = (seller: string): Promise<StateStore> => {
    let store = stores.get(seller);
    if (!store) {
      store = openPostgresStateStore(seller, { url: o.url }, { database });
      stores.set(seller, store);
    }
    return store;
  };
  let sellers: readonly string[] = [];
  let runs = 0;
  let ticker: NodeJS.Timeout | undefined;
  const tick = (): void => {
    for (const seller of sellers) void boss.send(QUEUE, { seller }, { singletonKey: seller }).catch(() => null);
  };
  return {
    sellersChanged(now) {
      const added = now.length > sellers.length;
      sellers = [...now];
      // A seller added is sent at once, as a `sellers add` would.
      if (added) tick();
    },
    async start() {
      await boss.start();
      await boss.work<RunJob>(
        QUEUE,
        { localConcurrency: o.capacity, pollingIntervalSeconds: 0.5, batchSize: 1 },
        async ([job]) => {
          if (!job) return;
          const { seller } = job.data;
          await runWrites(await storeOf(seller), `${o.writer}#${seller}#${++runs}`, o.shape, job.signal);
        },
      );
      tick();
      ticker = setInterval(tick, TICK_MS);
    },
    async stop() {
      clearInterval(ticker);
      await boss.stop({ graceful: true, timeout: 5_000 });
      for (const s of stores.values()) await (await s).close();
    },
  };
}
