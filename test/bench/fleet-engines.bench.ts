// Fleet engines bench: our balancer (Replica + seller leases) against pg-boss (a `stately` queue, singletonKey =
// seller, per-job heartbeats), on the same embedded PostgreSQL (127.0.0.1), each seller's work being runs of
// journal writes through the real store (test/bench/support/*-engine.ts). Three replica processes, twelve
// sellers; our lease TTL and pg-boss's heartbeat both BENCH_TTL_MS (default 10 s, pg-boss's floor). Measures:
// - spread: sellers (and runs) per replica over a 10 s window, and sellers that changed replica within it;
// - seller added under load: from its row in the sellers table to its first write;
// - failover: SIGKILL of a replica, to the first write of each of its sellers by another (slowest and mean);
// - fencing: a replica paused (SIGSTOP) until its sellers were taken over, then resumed (SIGCONT): the writes
//   it still got accepted for a seller another replica had taken (0 = fenced);
// - database transactions per second at rest (the engine's own cost, from pg_stat_database).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openPostgresStateDatabase } from '../../src/state/postgres-state-database.ts';
import { startPostgres } from '../support/postgres.ts';
import { until } from '../support/until.ts';
import type { EngineOptions } from './support/engine.ts';
import { createRunQueue } from './support/pg-boss-engine.ts';
import { writerOf } from './support/seller-writes.ts';

const ENGINES = ['balancer', 'pg-boss'] as const;
type Engine = (typeof ENGINES)[number];
const REPLICAS = 3;
const SELLERS = Array.from({ length: 12 }, (_, i) => `s${String(i + 1).padStart(2, '0')}`);
const TTL_MS = Number(process.env.BENCH_TTL_MS ?? 10_000);
const SHAPE = { writes: 20, writeMs: 100 };
const WORKER = join(import.meta.dirname, 'support', 'fleet-engine-worker.ts');

interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
}

interface Write {
  readonly seller: string;
  readonly writer: string;
  readonly at: number;
}

interface Figures {
  startMs: number;
  spread: string;
  moved: number;
  addedMs: number;
  failoverMaxMs: number;
  failoverMeanMs: number;
  failedOver: number;
  staleAccepted: number;
  staleFenced: string;
  pausedTakenOver: number;
  txPerSec: number;
}

const pgServer = await startPostgres();
const results = new Map<Engine, Figures>();
let failed = false;
try {
  for (const engine of ENGINES) results.set(engine, await benchEngine(engine));
} catch (err) {
  failed = true;
  console.log(`!! ${(err as Error).stack ?? String(err)}`);
} finally {
  await pgServer.stop();
}

const rows: [string, (f: Figures) => string][] = [
  ['replicas start to every seller writing', (f) => `${(f.startMs / 1000).toFixed(1)} s`],
  ['sellers per replica (runs per replica) over 10 s', (f) => f.spread],
  ['sellers that changed replica in those 10 s', (f) => `${f.moved}`],
  ['seller added under load: to its first write', (f) => `${(f.addedMs / 1000).toFixed(2)} s`],
  [
    'SIGKILL: to the first write by another replica',
    (f) =>
      `${(f.failoverMaxMs / 1000).toFixed(1)} s slowest, ${(f.failoverMeanMs / 1000).toFixed(1)} s mean ` +
      `(${f.failedOver} sellers)`,
  ],
  [
    'SIGSTOP past detection, SIGCONT: writes accepted after takeover',
    (f) => `${f.staleAccepted} (${f.pausedTakenOver} sellers taken over; ${f.staleFenced})`,
  ],
  ['PostgreSQL transactions/s (3 replicas, 12 sellers writing)', (f) => `${Math.round(f.txPerSec)}`],
];
console.log(
  `\nNode ${process.version}; ${REPLICAS} replicas, ${SELLERS.length} sellers, TTL/heartbeat ${TTL_MS / 1000} s, ` +
    `runs of ${SHAPE.writes} writes every ${SHAPE.writeMs} ms`,
);
console.log(`| | ${ENGINES.join(' | ')} |\n|---|${ENGINES.map(() => '---').join('|')}|`);
for (const [what, fmt] of rows)
  console.log(
    `| ${what} | ${ENGINES.map((e) => (results.get(e) ? fmt(results.get(e) as Figures) : '-')).join(' | ')} |`,
  );
process.exitCode = failed ? 1 : 0;

async function benchEngine(engine: Engine): Promise<Figures> {
  const url = await pgServer.createDatabase(`fleet_${engine.replace('-', '_')}`);
  // Migrate the state db once, and the sellers table the replicas follow.
  const { database } = await openPostgresStateDatabase({ url });
  await database.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const procs: Proc[] = [];
  try {
    await client.query('CREATE TABLE bench_sellers (seller text PRIMARY KEY)');
    await client.query('INSERT INTO bench_sellers SELECT unnest($1::text[])', [SELLERS]);
    if (engine === 'pg-boss') await createRunQueue(url, TTL_MS);
    const writes = async (since: number): Promise<Write[]> =>
      (
        await client.query<{ seller: string; run_id: string; created_at: string }>(
          'SELECT seller, run_id, created_at FROM journal WHERE created_at >= $1 ORDER BY created_at',
          [since],
        )
      ).rows.map((r) => ({ seller: r.seller, writer: writerOf(r.run_id), at: Number(r.created_at) }));
    const options = (writer: string): EngineOptions => ({
      url,
      writer,
      ttlMs: TTL_MS,
      shape: SHAPE,
      capacity: SELLERS.length + 1,
    });

    const t0 = Date.now();
    for (let i = 1; i <= REPLICAS; i++) procs.push(startWorker(engine, options(`r${i}`)));
    await until(
      `${engine}: every seller writing`,
      async () => {
        const recent = await writes(Date.now() - 1_500);
        return SELLERS.every((s) => recent.some((w) => w.seller === s)) ? true : undefined;
      },
      120_000,
    );
    const startMs = Date.now() - t0;

    // Spread over a steady window, and what it costs the database.
    await sleep(3_000);
    const tx = async () =>
      Number(
        (
          await client.query<{ n: string }>(
            'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
          )
        ).rows[0]?.n,
      );
    const w0 = Date.now();
    const tx0 = await tx();
    await sleep(10_000);
    const txPerSec = ((await tx()) - tx0) / ((Date.now() - w0) / 1000);
    const window = await writes(w0);
    const sellersOf = (writer: string) => new Set(window.filter((w) => w.writer === writer).map((w) => w.seller));
    const runsOf = async (writer: string) =>
      Number(
        (
          await client.query<{ n: string }>(
            'SELECT count(DISTINCT run_id) AS n FROM journal WHERE created_at >= $1 AND run_id LIKE $2',
            [w0, `${writer}#%`],
          )
        ).rows[0]?.n,
      );
    const names = procs.map((p) => p.name);
    const runs: number[] = [];
    for (const n of names) runs.push(await runsOf(n));
    const spread = `${names.map((n) => sellersOf(n).size).join('/')} (${runs.join('/')})`;
    const moved = SELLERS.filter(
      (s) => new Set(window.filter((w) => w.seller === s).map((w) => w.writer)).size > 1,
    ).length;

    // A seller added while every replica is busy.
    const tAdd = Date.now();
    await client.query(`INSERT INTO bench_sellers VALUES ('s99')`);
    const firstAdded = await until(
      `${engine}: the added seller's first write`,
      async () => (await writes(tAdd)).find((w) => w.seller === 's99'),
      60_000,
    );
    const addedMs = firstAdded.at - tAdd;

    // SIGKILL the replica that wrote s01 last; its sellers are those it wrote in the last second.
    const recent = await writes(Date.now() - 1_000);
    const victimName = recent.filter((w) => w.seller === 's01').at(-1)?.writer ?? 'r1';
    const victim = procs.find((p) => p.name === victimName) ?? procs[0];
    if (!victim) throw new Error('no replica');
    const victimSellers = [...new Set(recent.filter((w) => w.writer === victim.name).map((w) => w.seller))];
    const tKill = Date.now();
    victim.child.kill('SIGKILL');
    await victim.exited;
    const takeovers = await until(
      `${engine}: every seller of the killed replica written by another`,
      async () => {
        const after = await writes(tKill);
        const firsts = victimSellers.map((s) => after.find((w) => w.seller === s && w.writer !== victim.name)?.at);
        return firsts.every((t) => t !== undefined) ? firsts.map((t) => (t ?? 0) - tKill) : undefined;
      },
      120_000,
    );
    const live = procs.filter((p) => p !== victim);

    // A replica paused past detection: its sellers are taken over; then it resumes. What does it still write?
    await sleep(3_000);
    const before = await writes(Date.now() - 1_000);
    const paused = live[0];
    if (!paused) throw new Error('no replica left');
    const pausedSellers = [...new Set(before.filter((w) => w.writer === paused.name).map((w) => w.seller))];
    const tStop = Date.now();
    paused.child.kill('SIGSTOP');
    const takenOver = await until(
      `${engine}: the paused replica's sellers written by another`,
      async () => {
        const after = await writes(tStop);
        const firsts = pausedSellers.map((s) => after.find((w) => w.seller === s && w.writer !== paused.name)?.at);
        return firsts.every((t) => t !== undefined) ? firsts.map((t) => t ?? 0) : undefined;
      },
      120_000,
    );
    await sleep(1_000);
    const tCont = Date.now();
    paused.child.kill('SIGCONT');
    await sleep(Math.max(5_000, TTL_MS));
    // A stale write: the resumed replica carrying on a run it began before the pause, for a seller another
    // replica has written since (a new run it starts after resuming needs the seller again, lease or job).
    const runsBefore = new Set(
      (
        await client.query<{ run_id: string }>(
          'SELECT DISTINCT run_id FROM journal WHERE run_id LIKE $1 AND created_at < $2',
          [`${paused.name}#%`, tStop],
        )
      ).rows.map((r) => r.run_id),
    );
    const staleRows = await client.query<{ seller: string; run_id: string; created_at: string }>(
      'SELECT seller, run_id, created_at FROM journal WHERE run_id LIKE $1 AND created_at >= $2',
      [`${paused.name}#%`, tCont],
    );
    const staleAccepted = staleRows.rows.filter((r) => {
      const i = pausedSellers.indexOf(r.seller);
      return runsBefore.has(r.run_id) && i >= 0 && Number(r.created_at) > (takenOver[i] ?? Number.POSITIVE_INFINITY);
    }).length;
    const staleFenced =
      engine === 'balancer'
        ? 'the store refuses them: lease epoch checked in the write'
        : 'no fence: the handler writes until its next heartbeat finds the claim gone';

    return {
      startMs,
      spread,
      moved,
      addedMs,
      failoverMaxMs: Math.max(...takeovers),
      failoverMeanMs: takeovers.reduce((a, b) => a + b, 0) / takeovers.length,
      failedOver: takeovers.length,
      staleAccepted,
      staleFenced,
      pausedTakenOver: pausedSellers.length,
      txPerSec,
    };
  } finally {
    for (const p of procs) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
      p.child.kill('SIGCONT');
      p.child.kill('SIGTERM');
    }
    await Promise.race([Promise.all(procs.map((p) => p.exited)), sleep(15_000)]);
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await client.end();
  }
}

function startWorker(engine: Engine, options: EngineOptions): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    env: { PATH: process.env.PATH ?? '', FLEET_ENGINE: engine, FLEET_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
    if (err.length > 20_000) err = err.slice(-10_000);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => {
      if (code !== 0 && signal !== 'SIGKILL' && signal !== 'SIGTERM') console.log(`!! ${options.writer}: ${err}`);
      resolve(code);
    }),
  );
  return { name: options.writer, child, exited };
}
