// Throughput of one daemon process (then two replicas) serving 8 sellers on PostgreSQL 2 ms away: a TCP proxy on
// 127.0.0.1 adds 1 ms each way to every packet of the state db (support/delay-proxy.ts). Each seller syncs 300
// items into an empty sandbox at 50 requests/s (its key's limit), so the limits allow 400 requests/s in all. The
// rate is measured while 10% to 90% of the offers arrive, and compared with those 400/s: the goal is 90%.
// Checks every offer arrived exactly once, and exits non-zero below the goal.
//   npm run bench throughput     BENCH_DELAY_MS=1 (each way), BENCH_ITEMS=300, BENCH_RATE=50, BENCH_REPLICAS=1,2
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { startPostgres } from '../support/postgres.ts';
import {
  converged,
  type Fleet,
  type ReplicaProc,
  readyz,
  sellerKey,
  startReplica,
  writeItems,
} from '../support/replica-fleet.ts';
import { until } from '../support/until.ts';
import { startDelayProxy } from './support/delay-proxy.ts';

const SELLERS = ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8'];
const ITEMS = Number(process.env.BENCH_ITEMS ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 1);
const REPLICAS = (process.env.BENCH_REPLICAS ?? '1,2').split(',').map(Number);
const GOAL = 0.9;

/** CPU seconds a process has used (user + system), from /proc; 0 where there is none. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

const pg = await startPostgres();
const proxy = await startDelayProxy({ host: '127.0.0.1', port: pg.port }, DELAY_MS);
let failed = false;
try {
  for (const replicas of REPLICAS) {
    const sandbox = await startSandbox({
      apiKeys: SELLERS.map(sellerKey),
      sellerPerKey: true,
      // The sandbox allows a little more than the client asks: the client's pacing is what is measured.
      rateLimit: { ratePerSec: RATE * 1.2, burst: 20 },
    });
    const dir = mkdtempSync(join(tmpdir(), 'offersync-throughput-'));
    const direct = new URL(await pg.createDatabase(`throughput_${replicas}`));
    direct.port = String(proxy.port);
    const fleet: Fleet = {
      dir,
      sellers: SELLERS,
      items: ITEMS,
      url: direct.toString(),
      sandbox,
      ttlMs: 10_000,
      ratePerSec: RATE,
    };
    for (const s of SELLERS) writeItems(fleet, s, 100);
    const procs: ReplicaProc[] = [];
    const total = SELLERS.length * ITEMS;
    const seen: { t: number; n: number }[] = [];
    // Created offers by the sandbox's counters: cheap to read, unlike a dump of every offer.
    const created = () => {
      const byStatus = sandbox.counters().byRoute['POST /api/v1/items'] ?? {};
      return Number(byStatus['200'] ?? 0) + Number(byStatus['201'] ?? 0);
    };
    const sampler = setInterval(() => seen.push({ t: performance.now(), n: created() }), 50);
    try {
      for (let i = 1; i <= replicas; i++) procs.push(await startReplica(fleet, i));
      await until('every offer created', async () => (created() >= total ? true : undefined), 600_000);
      clearInterval(sampler);
      seen.push({ t: performance.now(), n: created() });
      await until('convergence', async () => (converged(fleet, 100) ? true : undefined), 600_000);
      const first = (share: number) => seen.find((s) => s.n >= total * share);
      const a = first(0.1);
      const b = first(0.9);
      if (!a || !b) throw new Error('no 10% / 90% samples');
      const perSec = ((b.n - a.n) / (b.t - a.t)) * 1000;
      const allowed = SELLERS.length * RATE;
      const ratio = perSec / allowed;
      const creates = sandbox.counters().byRoute['POST /api/v1/items'];
      const createCount = creates ? Object.values(creates).reduce((x, y) => x + y, 0) : 0;
      const held = await Promise.all(procs.map(readyz));
      const cpu = procs.map((p) => cpuSeconds(p.child.pid).toFixed(1)).join('/');
      const wall = ((seen.at(-1)?.t ?? 0) - (seen[0]?.t ?? 0)) / 1000;
      console.log(
        `${replicas} replica(s), db ${2 * DELAY_MS} ms away, sellers per replica ` +
          `${held.map((r) => r?.held.length ?? '?').join('/')}: ${Math.round(perSec)} offers/s from 10% to 90% ` +
          `(${(ratio * 100).toFixed(0)}% of the ${allowed}/s allowed); ${createCount} creates for ${total} offers; ` +
          `daemon CPU ${cpu} s in ${wall.toFixed(1)} s`,
      );
      if (createCount !== total || sandbox.dump().items.length !== total) {
        failed = true;
        console.log(`!! ${createCount} creates, ${sandbox.dump().items.length} items, want ${total} of each`);
      }
      if (ratio < GOAL) {
        failed = true;
        console.log(`!! below the goal of ${GOAL * 100}%`);
      }
    } finally {
      clearInterval(sampler);
      for (const p of procs) p.child.kill('SIGTERM');
      await Promise.all(procs.map((p) => p.exited));
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
} finally {
  await proxy.close();
  await pg.stop();
}
process.exit(failed ? 1 : 0);
