// CPU per write of the shipped CLI: `offersync reconcile` from dist/ (npm run build, run first here) as its own
// process, a first sync of N item creates (default 3,000) into an empty sandbox in a process of its own with no
// rate limit, state in a sqlite file, then in PostgreSQL (embedded, 2 ms away through a delay proxy). The figure is
// the whole CLI process's CPU (every thread, user + system, start and exit included) divided by the creates the
// sandbox counted: fair under load, unlike wall time. A shared machine's speed varies from minute to minute, so
// each is measured BENCH_RUNS times (default 5, each a fresh process, sandbox and state) and judged by the median;
// beside each run, the CPU a fixed loop took just before it (the host's speed then: lower is faster).
// Goals: under 0.5 ms a write on sqlite, under 1 ms on PostgreSQL; exits non-zero above them or when a run does not
// converge.
//   npm run bench write-cost     BENCH_WRITES=N, BENCH_RUNS=N, BENCH_STATE=sqlite or postgres for one,
//                                BENCH_DELAY_MS=1 (each way)
//   BENCH_PROFILE=/tmp/wc npm run bench write-cost   (each run's CPU profile, node --cpu-prof, in that folder)
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { startSandboxProcess } from '../support/sandbox-process.ts';
import { benchCliEnv, benchConfigYaml } from './support/bench-cli.ts';
import { startDelayProxy } from './support/delay-proxy.ts';

const N = Number(process.env.BENCH_WRITES ?? 3000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const STATES = (process.env.BENCH_STATE ?? 'sqlite,postgres').split(',');
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 1);
const GOAL_MS: Record<string, number> = { sqlite: 0.5, postgres: 1 };
const KEY = 'bench-write-cost-key';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'offersync.js');
const PRELOAD = new URL('./support/cpu-at-exit.mjs', import.meta.url).href;

interface Counters {
  readonly byRoute: Record<string, Record<string, number>>;
}

interface CpuAtExit {
  readonly cpu: NodeJS.CpuUsage;
  readonly firstRequest: NodeJS.CpuUsage | null;
  readonly v8ThreadsS: number;
}

interface RunFigures {
  readonly code: number | null;
  readonly creates: number;
  readonly msPerWrite: number;
  readonly cpuS: number;
  readonly startS: number;
  readonly v8ThreadsS: number;
  readonly wallS: number;
  readonly stderr: string;
}

async function creates(url: string): Promise<number> {
  const c = (await (await fetch(`${url}/__sandbox/counters`)).json()) as Counters;
  return Object.values(c.byRoute['POST /api/v1/items'] ?? {}).reduce((a, b) => a + b, 0);
}

const seconds = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1e6;

/**
 * The host's speed just before a run: the CPU ms a fixed loop of arithmetic takes. On a shared host it moves by a
 * third from minute to minute, and a run's figure moves with it.
 */
function hostLoopMs(): number {
  const t0 = process.cpuUsage();
  let x = 0;
  for (let i = 0; i < 30_000_000; i++) x += i % 7;
  if (x < 0) throw new Error('unreachable');
  return seconds(process.cpuUsage(t0)) * 1000;
}

/** One first sync by the CLI into a new sandbox, with the state at stateUrl ('' for a sqlite file). */
async function firstSync(stateUrl: string, run: number, state: string): Promise<RunFigures> {
  const work = mkdtempSync(join(tmpdir(), 'offersync-bench-write-cost-'));
  // The sandbox built too: it shares the machine with the CLI measured, and a lighter one disturbs it less.
  const sandbox = await startSandboxProcess(KEY, 20_000, [], [BIN]);
  try {
    mkdirSync(join(work, 'catalogue', 'items'), { recursive: true });
    const lines: string[] = [];
    for (let i = 0; i < N; i++)
      lines.push(JSON.stringify({ external_id: `it-${i}`, title: `Item ${i}`, price: 1000 + i, stock: 1 }));
    writeFileSync(join(work, 'catalogue', 'items', 'i.ndjson'), lines.join('\n'));
    writeFileSync(join(work, 'offersync.yaml'), benchConfigYaml(sandbox.url));
    const out = join(work, 'cpu.json');
    const profile = process.env.BENCH_PROFILE
      ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE, '--cpu-prof-name', `${state}-${run}.cpuprofile`]
      : [];
    const env = benchCliEnv(KEY, stateUrl, { BENCH_CPU_OUT: out });
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [...profile, '--import', PRELOAD, BIN, 'reconcile', '--config', join(work, 'offersync.yaml')],
      { cwd: work, env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const wallS = (performance.now() - t0) / 1000;
    const m = JSON.parse(readFileSync(out, 'utf8')) as CpuAtExit;
    const made = await creates(sandbox.url);
    const cpuS = seconds(m.cpu);
    return {
      code,
      creates: made,
      msPerWrite: (cpuS * 1000) / Math.max(1, made),
      cpuS,
      startS: m.firstRequest ? seconds(m.firstRequest) : cpuS,
      v8ThreadsS: m.v8ThreadsS,
      wallS,
      stderr,
    };
  } finally {
    sandbox.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) throw new Error('npm run build failed');

let failed = false;
for (const state of STATES) {
  let server: TestPostgres | undefined;
  let proxy: Awaited<ReturnType<typeof startDelayProxy>> | undefined;
  try {
    if (state === 'postgres') {
      server = await startPostgres();
      proxy = await startDelayProxy({ host: '127.0.0.1', port: server.port }, DELAY_MS);
    }
    const where = state === 'postgres' ? `PostgreSQL ${2 * DELAY_MS} ms away` : 'a sqlite file';
    console.log(`offersync reconcile (dist/) of ${N} new items, state in ${where}, ${RUNS} runs:`);
    const perWrite: number[] = [];
    for (let run = 1; run <= RUNS; run++) {
      let stateUrl = '';
      if (server && proxy) {
        const direct = new URL(await server.createDatabase(`write_cost_${run}`));
        direct.port = String(proxy.port);
        stateUrl = direct.toString();
      }
      const loopMs = hostLoopMs();
      const r = await firstSync(stateUrl, run, state);
      perWrite.push(r.msPerWrite);
      console.log(
        `  run ${run}: ${r.creates} creates, exit ${r.code}; CPU ${r.cpuS.toFixed(2)} s in ${r.wallS.toFixed(1)} s ` +
          `(${r.startS.toFixed(2)} s before the first request, V8's compiler and collector threads ` +
          `${r.v8ThreadsS.toFixed(2)} s): ${r.msPerWrite.toFixed(3)} ms of CPU a write; load ` +
          `${loadavg()[0]?.toFixed(1)}, host loop ${loopMs.toFixed(0)} ms`,
      );
      if (r.code !== 0 || r.creates !== N) {
        failed = true;
        console.log(`!! ${r.creates} creates for ${N} offers, exit ${r.code}\n${r.stderr.slice(-3000)}`);
      }
    }
    const sorted = [...perWrite].sort((a, b) => a - b);
    const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
    console.log(
      `  median ${median.toFixed(3)} ms of CPU a write (${sorted[0]?.toFixed(3)} to ` +
        `${sorted[sorted.length - 1]?.toFixed(3)}; goal < ${GOAL_MS[state]} ms)`,
    );
    if (!(median < (GOAL_MS[state] ?? 0))) {
      failed = true;
      console.log('!! above the goal');
    }
  } finally {
    await proxy?.close();
    await server?.stop();
  }
}
process.exit(failed ? 1 : 0);
