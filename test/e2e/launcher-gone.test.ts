// A supervisor that stops `npx offersync ...` signals npm, and npm exits without passing the signal on. Started by
// npm, offersync stops when its launcher is gone, as on SIGTERM; started otherwise it outlives its parent.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.ts';
import { until } from '../support/until.ts';

// A launcher that starts the sandbox command and then does nothing, as npm does while its child runs.
const LAUNCHER = `
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, process.argv.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] });
console.log(JSON.stringify({ pid: child.pid }));
setInterval(() => {}, 1 << 30);
`;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let left: number[] = [];
afterEach(() => {
  for (const pid of left) if (alive(pid)) process.kill(pid, 'SIGKILL');
  left = [];
});

async function launch(env: NodeJS.ProcessEnv): Promise<{ launcher: ChildProcess; pid: number; out: () => string }> {
  const launcher = spawn(process.execPath, ['-e', LAUNCHER, '--', ...CLI, 'sandbox', '--port', '0'], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  launcher.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const pid = await until('the launcher to name its child', () => {
    const m = /\{"pid":(\d+)\}/.exec(out);
    return m ? Number(m[1]) : undefined;
  });
  left.push(pid, launcher.pid!);
  await until('the sandbox to listen', () => /http:\/\/127\.0\.0\.1:\d+/.test(out));
  return { launcher, pid, out: () => out };
}

describe('the launcher gone', () => {
  it('stops an offersync that npm started, as SIGTERM does', async () => {
    const { launcher, pid } = await launch({ npm_command: 'exec' });
    launcher.kill('SIGKILL');
    await until('offersync to stop after its launcher', () => !alive(pid), 15_000);
    expect(alive(pid)).toBe(false);
  });

  it('leaves one started otherwise running (nohup, a supervisor that stays)', async () => {
    const { launcher, pid } = await launch({});
    launcher.kill('SIGKILL');
    // Three times the watch's interval: long enough for a watcher, were one installed, to have acted.
    await new Promise((r) => setTimeout(r, 3000));
    expect(alive(pid)).toBe(true);
  });
});
