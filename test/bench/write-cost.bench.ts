// CPU per write: a first sync of N item creates (default 3,000) into an empty sandbox in its own process with no
// rate limit, state in a sqlite file, then in PostgreSQL (embedded, 2 ms away through a delay proxy). The figure
// is this whole process's CPU (process.cpuUsage, user + system) from opening the services to closing them,
// divided by the creates the sandbox counted: fair under load, unlike wall time. Goals: under 0.5 ms a write on
// sqlite, under 1 ms on PostgreSQL; exits non-zero above them or when a run does not converge.
//   npm run bench write-cost     BENCH_WRITES=N, BENCH_STATE=sqlite or postgres for one, BENCH_DELAY_MS=1 (each way)
//   BENCH_PROFILE=/tmp/wc npm run bench write-cost   (a CPU profile of the measured part: /tmp/wc-sqlite.cpuprofile)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openServices } from '../../src/cli/services.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { reconcile } from '../../src/sync/reconciler.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { startSandboxProcess } from '../support/sandbox-process.ts';
import { startDelayProxy } from './support/delay-proxy.ts';

const N = Number(process.env.BENCH_WRITES ?? 3000);
const STATES = (process.env.BENCH_STATE ?? 'sqlite,postgres').split(',');
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 1);
const GOAL_MS: Record<string, number> = { sqlite: 0.5, postgres: 1 };
const KEY = 'bench-write-cost-key';

interface Counters {
  readonly byRoute: Record<string, Record<string, number>>;
}

async function creates(url: string): Promise<number> {
  const c = (await (await fetch(`${url}/__sandbox/counters`)).json()) as Counters;
  return Object.values(c.byRoute['POST /api/v1/items'] ?? {}).reduce((a, b) => a + b, 0);
}

let failed = false;
for (const state of STATES) {
  const work = mkdtempSync(join(tmpdir(), 'offersync-bench-write-cost-'));
  const sandbox = await startSandboxProcess(KEY);
  let server: TestPostgres | undefined;
  let proxy: Awaited<ReturnType<typeof startDelayProxy>> | undefined;
  try {
    let url = '';
    if (state === 'postgres') {
      server = await startPostgres();
      proxy = await startDelayProxy({ host: '127.0.0.1', port: server.port }, DELAY_MS);
      const direct = new URL(await server.createDatabase('write_cost'));
      direct.port = String(proxy.port);
      url = direct.toString();
    }
    const catalogue = join(work, 'catalogue');
    mkdirSync(join(catalogue, 'items'), { recursive: true });
    const lines: string[] = [];
    for (let i = 0; i < N; i++)
      lines.push(JSON.stringify({ external_id: `it-${i}`, title: `Item ${i}`, price: 1000 + i, stock: 1 }));
    writeFileSync(join(catalogue, 'items', 'i.ndjson'), lines.join('\n'));
    const base = loadConfig({
      env: {},
      cwd: work,
      flags: { catalogue, state: join(work, 'state.db'), baseUrl: sandbox.url },
      overrides: {
        rateLimit: { ratePerSec: 100_000, burst: 1000, concurrency: 16 },
        lists: { perPage: 100 },
        log: { level: 'silent' },
      },
    });
    const config = { ...base, apiKey: KEY, state: { ...base.state, url } };
    const before = await creates(sandbox.url);
    const profiler = process.env.BENCH_PROFILE ? new Session() : undefined;
    profiler?.connect();
    await profiler?.post('Profiler.enable');
    await profiler?.post('Profiler.start');
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const services = await openServices(config, { logger: silentLogger });
    const report = (await reconcile(services.reconcileDeps, { command: 'bench', dryRun: false })).report;
    const outcome = report.outcome;
    const firstFailure = report.outcomes.find((o) => o.outcome !== 'created');
    await services.close();
    const cpu = process.cpuUsage(cpu0);
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(`${process.env.BENCH_PROFILE}-${state}.cpuprofile`, JSON.stringify(profile));
      profiler.disconnect();
    }
    const wall = (performance.now() - t0) / 1000;
    const writes = (await creates(sandbox.url)) - before;
    const perWrite = (cpu.user + cpu.system) / 1000 / Math.max(1, writes);
    const where = state === 'postgres' ? `PostgreSQL ${2 * DELAY_MS} ms away` : 'a sqlite file';
    console.log(
      `${writes} creates, state in ${where}: outcome ${outcome}; CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s ` +
        `(user ${(cpu.user / 1e6).toFixed(2)}, system ${(cpu.system / 1e6).toFixed(2)}) in ${wall.toFixed(1)} s: ` +
        `${perWrite.toFixed(3)} ms of CPU a write (goal < ${GOAL_MS[state]} ms)`,
    );
    if (outcome !== 'converged' || writes !== N) {
      failed = true;
      console.log(
        `!! ${writes} creates for ${N} offers, outcome ${outcome}: ` +
          `${firstFailure?.outcome} ${firstFailure?.message ?? ''}`,
      );
    }
    if (perWrite >= (GOAL_MS[state] ?? 0)) {
      failed = true;
      console.log('!! above the goal');
    }
  } finally {
    sandbox.stop();
    await proxy?.close();
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
