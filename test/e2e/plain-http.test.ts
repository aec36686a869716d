// Plain http to another machine, through the real CLI and daemon as child processes: without `insecure` the
// refusal comes before anything is written (no state db, exit 2); with it, every start warns in the log, above the
// human report, and on the daemon's status page. The "other machine" is a name under `.test` that the children
// resolve to 127.0.0.1 (test/support/test-hosts.mjs): not loopback by name, while no byte leaves this machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { CLI } from '../support/cli.ts';
import { until } from '../support/until.ts';
import { freePort } from '../support/ports.ts';

const KEY = 'plain-http-key-4242';
const REFUSAL = /baseUrl http:\/\/\S+ is plain http to another machine: .*https:\/\/.*insecure: true/;
const WARNING = /insecure: the API key is sent in clear \(plain http\) to \S+, another machine/;

const TEST_HOSTS = new URL('../support/test-hosts.mjs', import.meta.url).href;
/** The sandbox's URL under a name that is not loopback. */
const elsewhere = (url: string) => url.replace('127.0.0.1', 'marketplace.offersync.test');

let dir = '';
let sandbox: RunningSandbox | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'offersync-plain-http-'));
  mkdirSync(join(dir, 'catalogue', 'items'), { recursive: true });
  writeFileSync(
    join(dir, 'catalogue', 'items', 'stock.json'),
    JSON.stringify([{ external_id: 'ph-1', title: 'Starter pack', price: 499, stock: 10, type: 'gold' }]),
  );
  sandbox = await startSandbox({ port: 0, apiKeys: [KEY] });
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function start(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ['--import', TEST_HOSTS, ...CLI, ...args], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      OFFERSYNC_API_KEY: KEY,
      OFFERSYNC_CATALOGUE_DIR: join(dir, 'catalogue'),
      OFFERSYNC_LOG_FORMAT: 'json',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

describe('plain http to another machine', { timeout: 120_000 }, () => {
  it.each([['reconcile'], ['plan'], ['daemon']])(
    'without insecure, %s refuses before anything is written: exit 2, the URL and what to do',
    async (command) => {
      const state = join(dir, `refused-${command}`, 'state.db');
      const run = start([command], {
        OFFERSYNC_BASE_URL: 'http://marketplace.example.com:8080',
        OFFERSYNC_STATE_DB: state,
        OFFERSYNC_DAEMON_HEALTHPORT: '0',
      });
      expect(await run.exited, run.stderr()).toBe(2);
      expect(run.stderr()).toMatch(REFUSAL);
      expect(run.stderr()).toContain('http://marketplace.example.com:8080');
      expect(existsSync(state)).toBe(false);
      expect(existsSync(join(dir, `refused-${command}`))).toBe(false);
    },
  );

  it('with insecure, reconcile warns in the log and above its report, and runs', async () => {
    const run = start(['reconcile', '--insecure'], {
      OFFERSYNC_BASE_URL: elsewhere(sandbox!.url),
      OFFERSYNC_STATE_DB: join(dir, 'insecure-cli', 'state.db'),
    });
    expect(await run.exited, run.stderr()).toBe(0);
    expect(run.stdout().split('\n')[0]).toMatch(new RegExp(`^Warning: ${WARNING.source}`));
    expect(run.stdout()).toMatch(/Converged/);
    const logged = run
      .stderr()
      .split('\n')
      .filter((l) => WARNING.test(l));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({ level: 40 });
    expect(run.stderr()).not.toContain(KEY);
  });

  it('with insecure, the daemon warns in the log and on its status page', async () => {
    const port = await freePort();
    const daemon = start(['daemon', '--insecure'], {
      OFFERSYNC_BASE_URL: elsewhere(sandbox!.url),
      OFFERSYNC_STATE_DB: join(dir, 'insecure-daemon', 'state.db'),
      OFFERSYNC_DAEMON_HEALTHPORT: String(port),
    });
    try {
      let page = '';
      for (let i = 0; i < 300 && !page; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined);
        if (res?.status === 200) page = await res.text();
        else await new Promise((r) => setTimeout(r, 100));
      }
      expect(page).toMatch(/<section class="notice" role="alert">/);
      expect(page).toMatch(WARNING);
      // Once the daemon says it watches, its start has logged all it logs: the warning once, not twice.
      await until('the daemon watching', () => daemon.stderr().includes('watching'), 30_000);
      expect(
        daemon
          .stderr()
          .split('\n')
          .filter((l) => l.startsWith('{') && WARNING.test(l)),
      ).toHaveLength(1);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  });
});
