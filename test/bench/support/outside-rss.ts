// The resident memory of another process, read from outside it: /proc/<pid>/status every few ms from the bench's
// own event loop, which the child's synchronous work cannot hold. Its peak lines up with the child's CPU profile
// (--cpu-prof) on one clock: V8's profile times and process.hrtime are both CLOCK_MONOTONIC on Linux.
import { readFileSync } from 'node:fs';

export interface OutsidePeak {
  readonly rss: number;
  /** Seconds since the sampling started (the child's spawn). */
  readonly atS: number;
  /** CLOCK_MONOTONIC in microseconds, the clock of a .cpuprofile's startTime. */
  readonly atMicros: number;
}

export interface OutsideSampler {
  /** Stops sampling; the highest RSS seen, or null if the process was never read. */
  stop(): OutsidePeak | null;
  /** Every reading: CLOCK_MONOTONIC microseconds and RSS bytes. */
  readonly series: { readonly atMicros: number[]; readonly rss: number[] };
}

const micros = (): number => Number(process.hrtime.bigint() / 1000n);

export function sampleRssOf(pid: number, everyMs = 5): OutsideSampler {
  const start = micros();
  let peak: OutsidePeak | null = null;
  const series = { atMicros: [] as number[], rss: [] as number[] };
  const timer = setInterval(() => {
    let status: string;
    try {
      status = readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch {
      return; // exited
    }
    const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
    const now = micros();
    series.atMicros.push(now);
    series.rss.push(rss);
    if (rss > (peak?.rss ?? 0)) peak = { rss, atS: (now - start) / 1e6, atMicros: now };
  }, everyMs);
  return {
    series,
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A child's CPU profile, asked where the child was at a moment. */
export interface ProfileIndex {
  /**
   * The child's own frames (files under dist/ or src/, and its dependencies) on the stack sampled nearest to
   * atMicros, innermost first, after how far that sample is from the moment.
   */
  stackAt(atMicros: number, frames?: number): readonly string[];
}

const NOT_CODE = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

export function readProfile(profileFile: string): ProfileIndex {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const times: number[] = [];
  const codeIds: number[] = [];
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    const id = profile.samples[i] ?? -1;
    // An idle or GC sample says nothing of the code that asked for the memory: only others are kept.
    if (NOT_CODE.has(byId.get(id)?.callFrame.functionName ?? '(root)')) continue;
    times.push(t);
    codeIds.push(id);
  }
  return {
    stackAt(atMicros, frames = 6) {
      let lo = 0;
      let hi = times.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((times[mid] ?? 0) < atMicros) lo = mid + 1;
        else hi = mid;
      }
      const best = lo > 0 && atMicros - (times[lo - 1] ?? 0) < (times[lo] ?? 0) - atMicros ? lo - 1 : lo;
      const out: string[] = [`(${(Math.abs((times[best] ?? 0) - atMicros) / 1000).toFixed(0)} ms away)`];
      for (let id: number | undefined = codeIds[best]; id !== undefined && out.length <= frames; ) {
        const f = byId.get(id)?.callFrame;
        if (f && /\/(dist|src|node_modules)\//.test(f.url)) {
          const file = f.url.replace(/^.*\/(dist|src|node_modules)\//, '$1/');
          out.push(`${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`);
        }
        id = parent.get(id);
      }
      return out;
    },
  };
}

/** The largest rises of RSS from one reading to the next: when the child took memory in a hurry. */
export function steepestRises(
  series: OutsideSampler['series'],
  count: number,
): { readonly atMicros: number; readonly from: number; readonly to: number }[] {
  const rises: { atMicros: number; from: number; to: number }[] = [];
  for (let i = 1; i < series.rss.length; i++) {
    const from = series.rss[i - 1] ?? 0;
    const to = series.rss[i] ?? 0;
    // Between the two readings: the midpoint is the best guess of when.
    const at = ((series.atMicros[i - 1] ?? 0) + (series.atMicros[i] ?? 0)) / 2;
    if (to > from) rises.push({ atMicros: at, from, to });
  }
  return rises.sort((a, b) => b.to - b.from - (a.to - a.from)).slice(0, count);
}
