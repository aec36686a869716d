// The processes a test run left behind: a sandbox, a daemon or a database a test started and never stopped keeps
// a port and a folder busy long after the run, and on a CI machine until it is recycled. Read from /proc (Linux);
// elsewhere nothing is found.
import { readdirSync, readFileSync } from 'node:fs';

interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly session: number;
  /** R, S, D...; Z for a process that ended and waits to be reaped (no longer running). */
  readonly state: string;
  /** Clock ticks after boot. */
  readonly start: number;
}

export interface LeftProcess {
  readonly pid: number;
  readonly command: string;
}

const TOOLING = /node_modules\/(vitest|tinypool|esbuild|@esbuild)\b/;

function stat(pid: number | 'self'): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields after the last ')' are plain.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return {
      pid: Number(text.slice(0, text.indexOf(' '))),
      ppid: Number(f[1]),
      session: Number(f[3]),
      state: f[0] ?? '',
      start: Number(f[19]),
    };
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

/** This process as the run's root: what it starts later, in its session, is the run's. */
export function runRoot(): ProcStat | undefined {
  return stat('self');
}

/**
 * Processes of this run still alive: in the root's session, started after it, and either still below it (not a
 * vitest worker) or orphaned (their parent gone, adopted by init). Another run's live processes have a live parent
 * of their own and are not counted.
 */
export function leftProcesses(root: ProcStat): LeftProcess[] {
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return [];
  }
  const all = new Map<number, ProcStat>();
  for (const pid of pids) {
    const s = stat(pid);
    if (s) all.set(pid, s);
  }
  const below = (s: ProcStat): boolean => {
    for (let p = all.get(s.ppid), depth = 0; p && depth < 64; p = all.get(p.ppid), depth++)
      if (p.pid === root.pid) return true;
    return false;
  };
  const left: LeftProcess[] = [];
  for (const s of all.values()) {
    if (s.pid === root.pid || s.session !== root.session || s.start < root.start || /^[ZX]/.test(s.state)) continue;
    const orphan = s.ppid === 1;
    if (!orphan && !below(s)) continue;
    const command = commandLine(s.pid);
    // Below the run's root, vitest's own workers and the transformer's service are the runner's, not a test's.
    if (command === '' || (!orphan && TOOLING.test(command))) continue;
    left.push({ pid: s.pid, command });
  }
  return left;
}

/**
 * The processes still left after waiting up to `graceMs` for those that were stopping at the run's end; those
 * `stillServing` marks are stopped by the run itself after this check.
 */
export async function leftAfter(
  root: ProcStat,
  graceMs: number,
  stillServing: (p: LeftProcess) => boolean = () => false,
): Promise<LeftProcess[]> {
  const end = Date.now() + graceMs;
  for (;;) {
    const left = leftProcesses(root).filter((p) => !stillServing(p));
    if (left.length === 0 || Date.now() >= end) return left;
    await new Promise((r) => setTimeout(r, 200));
  }
}
