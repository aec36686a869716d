import { availableParallelism, loadavg } from 'node:os';
import { startPostgres } from '../support/postgres.ts';
import {
  converged,
  type Ready,
  readyz,
  type ReplicaProc,
  startFleet,
  startReplica,
  stopFleet,
  writeItems,
} from '../support/replica-fleet.ts';
import { until } from '../support/until.ts';

const SELLERS = ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'];
const ITEMS = Number(process.env.BENCH_ITEMS ?? 300);
/** Per seller key, on the client and the sandbox alike. */
const RATE = Number(process.env.BENCH_RATE ?? 100);

const pg = await startPostgres();
let failed = false;
try {
  for (const replicas of [1, 2, 3]) {
    const fleet = await startFleet({
      url: await pg.createDatabase(`bench_${replicas}`),
      sellers: SELLERS,
      items: ITEMS,
      ttlMs: 5_000,
      ratePerSec: RATE,
      prefix: 'replica-bench',
      sandboxRateLimit: { ratePerSec: RATE * 1.2, burst: 30 },
    });
    const { sandbox } = fleet;
    const procs: ReplicaProc[] = [];
    try {
      const t0 = Date.now();
      for (let i = 1; i <= replicas; i++) procs.push(await startReplica(fleet, i));
      await until('first convergence', async () => (converged(fleet, 100) ? true : undefined), 600_000);
      const createMs = Date.now() - t0;
      const split = await until(
        'every replica ready',
        async () => {
          const r = await Promise.all(procs.map(readyz));
          return r.every((x) => x?.ready) && r.flatMap((x) => x?.held ?? []).length === SELLERS.length
            ? (r as Ready[])
            : undefined;
        },
        60_000,
      );
      const t1 = Date.now();
      for (const s of SELLERS) writeItems(fleet, s, 250);
      await until('update convergence', async () => (converged(fleet, 250) ? true : undefined), 600_000);
      const updateMs = Date.now() - t1;
      const total = SELLERS.length * ITEMS;
      const creates = sandbox.counters().byRoute['POST /api/v1/items'];
      const createCount = creates ? Object.values(creates).reduce((a, b) => a + b, 0) : 0;
      if (createCount !== total || sandbox.dump().items.length !== total) {
        failed = true;
        console.log(
          `!! ${replicas} replica(s): ${createCount} creates, ${sandbox.dump().items.length} items, want ${total}`,
        );
      }
      console.log(
        `${replicas} replica(s): sellers per replica ${split.map((r) => r.held.length).join('/')}; ` +
          `create ${total} offers in ${(createMs / 1000).toFixed(1)} s ` +
          `(${Math.round(total / (createMs / 1000))} offers/s, startup included); ` +
          `update all in ${(updateMs / 1000).toFixed(1)} s (${Math.round(total / (updateMs / 1000))} offers/s)`,
      );
    } finally {
      await stopFleet(fleet, procs, { signal: 'SIGTERM' });
    }
  }
} finally {
  await pg.stop();
}
// The host's cores and load, printed beside the figures: they bound what more replicas can gain.
const host = `${availableParallelism()} cores, load ${loadavg()[0]?.toFixed(1)}`;
console.log(`(6 sellers x ${ITEMS} items; ${RATE} req/s per seller key; ${host})`);
process.exitCode = failed ? 1 : 0;
