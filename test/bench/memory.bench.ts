// Memory of the shipped CLI: `offersync reconcile` from dist/ (npm run build, run first here) as its
// own process with no NODE_OPTIONS, against a sandbox process: the first sync of N offers
// (default 100,000, a third of each kind) into an empty marketplace, then the no-op run after it. Prints each
// run's peak RSS (the kernel's VmHWM) and peak V8 heap in use (sampled every 10 ms by a preloaded module),
// beside the peak RSS the bench reads from outside the CLI every 5 ms (/proc/<pid>/status), which the CLI's
// synchronous stretches cannot hide, and when in the run it was; and exits non-zero when a run does not converge
// or peaks at 256 MB RSS or more. It does so with the state in a
// sqlite file, then in PostgreSQL (embedded, on 127.0.0.1); each with the sandbox's rate limit off, then on
// (BENCH_LIMITED_RATE requests/s, default 2000, burst a tenth; the client told the same): requests then wait in
// the client's queue, which must not cost memory either.
//   npm run bench memory                 BENCH_OFFERS=N for another size, BENCH_STATE=sqlite or postgres for one,
//                                        BENCH_LIMITS=off or on for one
//   BENCH_NODE_FLAGS=--max-old-space-size=160 npm run bench memory   (what a heap cap, as an image sets, gives)
//   BENCH_WHERE=1 npm run bench memory   (the CLI with --cpu-prof: its stack at the outside peak and at the
//                                        steepest rises; BENCH_TIMELINE=file adds RSS and stack every 100 ms)
//   BENCH_NODE_FLAGS=--trace-gc BENCH_CHILD_OUT=file npm run bench memory   (the CLI's collections, to a file)
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { benchCliEnv, benchConfigYaml, UNLIMITED } from './support/bench-cli.ts';
import { writeBigCatalogue } from './support/big-catalogue.ts';
import { startSandboxProcess } from '../support/sandbox-process.ts';
import { type OutsidePeak, readProfile, sampleRssOf, steepestRises } from './support/outside-rss.ts';

const N = Number(process.env.BENCH_OFFERS ?? 100_000);
const GOAL_MB = 256;
const KEY = 'bench-memory-key';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'offersync.js');
const SAMPLER = new URL('./support/memory-sampler.mjs', import.meta.url).href;
const FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
const STATES = (process.env.BENCH_STATE ?? 'sqlite,postgres').split(',');
const LIMITS = (process.env.BENCH_LIMITS ?? 'off,on').split(',');
const LIMITED_RATE = Number(process.env.BENCH_LIMITED_RATE ?? 2000);
const LIMITED_BURST = Math.max(1, Math.round(LIMITED_RATE / 10));
/** BENCH_WHERE=1: the CLI runs with --cpu-prof, and the stack at its peak RSS is printed (the profile costs memory). */
const WHERE = process.env.BENCH_WHERE === '1';

const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) throw new Error('npm run build failed');

interface RunFigures {
  readonly code: number | null;
  readonly wallS: number;
  readonly peakRss: number;
  readonly peakHeap: number;
  /** process.memoryUsage() at the highest RSS sampled. */
  readonly atPeak: NodeJS.MemoryUsage;
  /** The peak RSS when reached between two samples (seconds into the run): a synchronous stretch. */
  readonly unseenPeak: { readonly atS: number; readonly peakRss: number } | null;
  /** Anonymous and file-backed resident pages as the process exits. */
  readonly exit: { readonly rssAnon: number; readonly rssFile: number };
  readonly stderr: string;
  /** The highest RSS the bench read from outside the child every 5 ms, which the child's event loop cannot hold. */
  readonly outside: OutsidePeak | null;
  /** With BENCH_WHERE=1: the child's frames at the outside peak, innermost first. */
  readonly where: readonly string[];
  /** With BENCH_WHERE=1: the steepest rises of RSS (MB from, MB to) and the child's frames then. */
  readonly rises: readonly string[];
}

const mb = (b: number): string => `${(b / 2 ** 20).toFixed(0)} MB`;

function runCli(work: string, stateUrl: string): Promise<RunFigures> {
  const out = join(work, 'memory.json');
  const profDir = join(work, 'cpu-profile');
  rmSync(profDir, { recursive: true, force: true });
  const profFlags = WHERE ? ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-interval', '2000'] : [];
  const env = benchCliEnv(KEY, stateUrl, { BENCH_MEMORY_OUT: out });
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [...FLAGS, ...profFlags, '--import', SAMPLER, BIN, 'reconcile', '--config', join(work, 'offersync.yaml')],
      {
        env,
        // BENCH_CHILD_OUT=file: the CLI's standard output there (what --trace-gc in BENCH_NODE_FLAGS prints).
        stdio: ['ignore', process.env.BENCH_CHILD_OUT ? openSync(process.env.BENCH_CHILD_OUT, 'a') : 'ignore', 'pipe'],
      },
    );
    const sampler = sampleRssOf(child.pid ?? -1);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => {
      const outside = sampler.stop();
      const m = JSON.parse(readFileSync(out, 'utf8')) as Omit<
        RunFigures,
        'code' | 'wallS' | 'stderr' | 'outside' | 'where'
      >;
      const prof = WHERE ? readdirSync(profDir).find((f) => f.endsWith('.cpuprofile')) : undefined;
      const index = prof ? readProfile(join(profDir, prof)) : undefined;
      const where = index && outside ? index.stackAt(outside.atMicros) : [];
      if (index && process.env.BENCH_TIMELINE) {
        // Every 100 ms: seconds, RSS and where the child was, for a look at a whole run.
        const { atMicros, rss } = sampler.series;
        const lines: string[] = [];
        for (let i = 0; i < rss.length; i += 20)
          lines.push(
            `${((atMicros[i]! - atMicros[0]!) / 1e6).toFixed(2)} ${mb(rss[i]!)} ` +
              index.stackAt(atMicros[i]!, 3).join(' <- '),
          );
        appendFileSync(process.env.BENCH_TIMELINE, `${lines.join('\n')}\n\n`);
      }
      const rises = steepestRises(sampler.series, 5).map(
        (r) =>
          `+${mb(r.to - r.from)} to ${mb(r.to)} ` +
          `at ${((r.atMicros - (sampler.series.atMicros[0] ?? 0)) / 1e6).toFixed(2)} s` +
          (index ? `, ${index.stackAt(r.atMicros, 4).join(' <- ')}` : ''),
      );
      resolve({ code, wallS: (performance.now() - t0) / 1000, ...m, stderr, outside, where, rises });
    });
  });
}

let failed = false;
for (const state of STATES)
  for (const limit of LIMITS) {
    const limited = limit === 'on';
    const work = mkdtempSync(join(tmpdir(), 'offersync-bench-memory-'));
    const sandbox = await startSandboxProcess(
      KEY,
      60_000,
      limited ? ['--rate', String(LIMITED_RATE), '--burst', String(LIMITED_BURST)] : [],
      // Built too, as in write-cost.bench.ts: a lighter sandbox disturbs the CLI measured less.
      [BIN],
    );
    let server: TestPostgres | undefined;
    try {
      server = state === 'postgres' ? await startPostgres() : undefined;
      const stateUrl = server ? await server.createDatabase('memory') : '';
      const shape = writeBigCatalogue(join(work, 'catalogue'), N);
      writeFileSync(
        join(work, 'offersync.yaml'),
        benchConfigYaml(sandbox.url, limited ? { ratePerSec: LIMITED_RATE, burst: LIMITED_BURST } : UNLIMITED),
      );
      console.log(
        `offersync reconcile (dist/, no NODE_OPTIONS${FLAGS.length > 0 ? `, node ${FLAGS.join(' ')}` : ''}) ` +
          `of ${N} offers (${shape.accounts} accounts, ${shape.items} items, ${shape.topups} top-ups, ` +
          `${shape.images} images), sandbox ` +
          `${limited ? `limited to ${LIMITED_RATE} requests/s` : 'without a rate limit'}, ` +
          `state in ${state}:`,
      );
      for (const name of ['first sync', 'no-op run']) {
        const r = await runCli(work, stateUrl);
        console.log(
          `  ${name}: exit ${r.code}, ${r.wallS.toFixed(1)} s; peak RSS ${mb(r.peakRss)} (goal < ${GOAL_MB} MB), ` +
            `peak V8 heap in use ${mb(r.peakHeap)}`,
        );
        const p = r.atPeak;
        console.log(
          `    at the highest RSS sampled (${mb(p.rss)}): V8 heap reserved ${mb(p.heapTotal)} (in use ` +
            `${mb(p.heapUsed)}), external ${mb(p.external)} (array buffers ${mb(p.arrayBuffers)}), rest ` +
            `${mb(p.rss - p.heapTotal - p.external)}; at exit anonymous ${mb(r.exit.rssAnon)}, ` +
            `file-backed ${mb(r.exit.rssFile)}`,
        );
        if (r.outside)
          console.log(
            `    read from outside every 5 ms: peak RSS ${mb(r.outside.rss)}, ${r.outside.atS.toFixed(1)} s into the ` +
              `run${r.where.length > 0 ? `, at ${r.where.join('\n      <- ')}` : ''}`,
          );
        for (const rise of r.rises) console.log(`      steepest rise: ${rise}`);
        if (r.unseenPeak)
          console.log(
            `    RSS rose to ${mb(r.unseenPeak.peakRss)} between two samples, ${r.unseenPeak.atS.toFixed(1)} s ` +
              'into the run (the event loop was held)',
          );
        if (r.code !== 0) {
          failed = true;
          console.log(r.stderr.slice(-3000));
        }
        if (r.peakRss >= GOAL_MB * 2 ** 20) failed = true;
      }
    } finally {
      sandbox.stop();
      await server?.stop();
      rmSync(work, { recursive: true, force: true });
    }
  }
process.exit(failed ? 1 : 0);
