// The run's closing check finds what a test left running: a process whose parent ended (orphaned, as a sandbox
// started through a launcher that was killed) and a child never stopped. The summary line fails the run for them.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { leftProcesses, runRoot } from '../support/left-processes.ts';

describe.runIf(existsSync('/proc/self/stat'))('left processes', () => {
  it('names an orphaned process and a child still running, and not once they are stopped', async () => {
    const root = runRoot()!;
    // sh starts sleep in the background and exits: sleep is an orphan, adopted by init.
    const sh = spawnSync('sh', ['-c', 'sleep 30 >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' });
    const orphan = Number(sh.stdout.trim());
    const child = spawn('sleep', ['31'], { stdio: 'ignore' });
    try {
      const left = leftProcesses(root).map((p) => p.pid);
      expect(left).toContain(orphan);
      expect(left).toContain(child.pid);
    } finally {
      process.kill(orphan, 'SIGKILL');
      child.kill('SIGKILL');
      await new Promise((r) => child.on('exit', r));
    }
    await new Promise((r) => setTimeout(r, 200));
    const after = leftProcesses(root).map((p) => p.pid);
    expect(after).not.toContain(child.pid);
    expect(after).not.toContain(orphan);
  });
});
