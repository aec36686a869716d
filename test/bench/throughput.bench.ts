// Throughput of one daemon process (then two replicas) serving 8 sellers on PostgreSQL 2 ms away: a TCP proxy on
// 127.0.0.1 adds 1 ms each way to every packet of the state db (support/delay-proxy.ts). Each seller syncs 300
// items into an empty sandbox at 50 requests/s (its key's limit), so the limits allow 400 requests/s in all. The
// sandbox runs in a process of its own with exactly those limits: the client's pacing is what is measured. The
// rate is measured while 10% to 90% of the offers arrive, and compared with those 400/s: the goal is 90%. The
// daemons' CPU per create is printed beside it. Checks every offer arrived exactly once, and exits non-zero
// below the goal.
//   npm run bench throughput     BENCH_DELAY_MS=1 (each way), BENCH_ITEMS=300, BENCH_RATE=50, BENCH_REPLICAS=1,2
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../support/postgres.ts';
import {
  type ReplicaProc,
  type ReplicaTarget,
  readyz,
  sellerKey,
  startReplica,
  writeItems,
} from '../support/replica-fleet.ts';
import { until } from '../support/until.ts';
import { startDelayProxy } from './support/delay-proxy.ts';
import { startSandboxChild } from './support/sandbox-child-process.ts';

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
    // Exactly the limits the client is told: its pacing is what is measured.
    const sandbox = await startSandboxChild({
      apiKeys: SELLERS.map(sellerKey),
      sellerPerKey: true,
      rateLimit: { ratePerSec: RATE, burst: 20 },
    });
    const dir = mkdtempSync(join(tmpdir(), 'offersync-throughput-'));
    const direct = new URL(await pg.createDatabase(`throughput_${replicas}`));
    direct.port = String(proxy.port);
    const fleet: ReplicaTarget = {
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
    const seen: { t: number; n: number; cpu: number }[] = [];
    const daemonCpu = () => procs.reduce((sum, p) => sum + cpuSeconds(p.child.pid), 0);
    // Created offers by the sandbox's counters: cheap to read, unlike a dump of every offer.
    const created = async () => {
      const byStatus = (await sandbox.counters()).byRoute['POST /api/v1/items'] ?? {};
      return Number(byStatus['200'] ?? 0) + Number(byStatus['201'] ?? 0);
    };
    const converged = async () => {
      const items = new Map((await sandbox.dump()).items.map((o) => [String(o.external_id), Number(o.price)]));
      return SELLERS.every((s) =>
        Array.from({ length: ITEMS }, (_, i) => i).every((i) => items.get(`${s}-item-${i}`) === 100 + i),
      );
    };
    let sampling = true;
    // One sample at a time: the sandbox answers over HTTP.
    const sampler = (async () => {
      while (sampling) {
        seen.push({ t: performance.now(), n: await created(), cpu: daemonCpu() });
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      for (let i = 1; i <= replicas; i++) procs.push(await startReplica(fleet, i));
      await until('every offer created', async () => ((seen.at(-1)?.n ?? 0) >= total ? true : undefined), 600_000);
      sampling = false;
      await sampler;
      await until('convergence', async () => ((await converged()) ? true : undefined), 600_000);
      const first = (share: number) => seen.find((s) => s.n >= total * share);
      const a = first(0.1);
      const b = first(0.9);
      if (!a || !b) throw new Error('no 10% / 90% samples');
      const perSec = ((b.n - a.n) / (b.t - a.t)) * 1000;
      const allowed = SELLERS.length * RATE;
      const ratio = perSec / allowed;
      const counters = await sandbox.counters();
      const creates = counters.byRoute['POST /api/v1/items'];
      const createCount = creates ? Object.values(creates).reduce((x, y) => x + y, 0) : 0;
      const held = await Promise.all(procs.map(readyz));
      const cpuEach = procs.map((p) => cpuSeconds(p.child.pid));
      const cpu = cpuEach.map((c) => c.toFixed(1)).join('/');
      const cpuPerWrite = (cpuEach.reduce((a, b) => a + b, 0) * 1000) / Math.max(1, createCount);
      // While 10% to 90% arrived: what a write costs once the daemons run, without their start and planning.
      const cpuPerWriteWindow = ((b.cpu - a.cpu) * 1000) / Math.max(1, b.n - a.n);
      const wall = ((seen.at(-1)?.t ?? 0) - (seen[0]?.t ?? 0)) / 1000;
      console.log(
        `${replicas} replica(s), db ${2 * DELAY_MS} ms away, sellers per replica ` +
          `${held.map((r) => r?.held.length ?? '?').join('/')}: ${Math.round(perSec)} offers/s from 10% to 90% ` +
          `(${(ratio * 100).toFixed(0)}% of the ${allowed}/s allowed); ${createCount} creates for ${total} offers; ` +
          `429 answers ${counters.rateLimited}; daemon CPU ${cpu} s in ${wall.toFixed(1)} s, ` +
          `${cpuPerWrite.toFixed(2)} ms a create from start (compiling, planning and lists included), ` +
          `${cpuPerWriteWindow.toFixed(2)} ms a create from 10% to 90%`,
      );
      const stored = (await sandbox.dump()).items.length;
      if (createCount !== total || stored !== total) {
        failed = true;
        console.log(`!! ${createCount} creates, ${stored} items, want ${total} of each`);
      }
      if (ratio < GOAL) {
        failed = true;
        console.log(`!! below the goal of ${GOAL * 100}%`);
      }
    } finally {
      sampling = false;
      await sampler;
      for (const p of procs) p.child.kill('SIGTERM');
      await Promise.all(procs.map((p) => p.exited));
      await sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
} finally {
  await proxy.close();
  await pg.stop();
}
process.exit(failed ? 1 : 0);
