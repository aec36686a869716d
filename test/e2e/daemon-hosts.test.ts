// The daemon as in the image (health on 0.0.0.0), a child process: `offersync healthcheck` (the image's
// HEALTHCHECK and the Kubernetes exec probes) still passes, a foreign Host gets 421, a name from
// OFFERSYNC_DAEMON_ALLOWEDHOSTS is answered, and nothing but GET and HEAD is.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { CLI } from '../support/cli.ts';
import { freePort } from '../support/ports.ts';

const KEY = 'daemon-hosts-key-9';

let sandbox: RunningSandbox;
let dir = '';
let port = 0;
let env: Record<string, string> = {};

function cli(args: string[]) {
  const child = spawn(process.execPath, [...CLI, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return { child, exited, output: () => out };
}

function ask(path: string, host: string, method = 'GET'): Promise<{ status: number; allow?: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode!, ...(res.headers.allow ? { allow: res.headers.allow } : {}) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  dir = mkdtempSync(join(tmpdir(), 'offersync-daemon-hosts-'));
  mkdirSync(join(dir, 'catalogue', 'items'), { recursive: true });
  writeFileSync(
    join(dir, 'catalogue', 'items', 'stock.json'),
    JSON.stringify([{ external_id: 'dh-1', title: 'Starter pack', price: 499, stock: 10, type: 'gold' }]),
  );
  port = await freePort();
  env = {
    PATH: process.env.PATH ?? '',
    OFFERSYNC_BASE_URL: sandbox.url,
    OFFERSYNC_API_KEY: KEY,
    OFFERSYNC_CATALOGUE_DIR: join(dir, 'catalogue'),
    OFFERSYNC_STATE_DB: join(dir, 'state', 'state.db'),
    OFFERSYNC_DAEMON_HEALTHHOST: '0.0.0.0',
    OFFERSYNC_DAEMON_HEALTHPORT: String(port),
    OFFERSYNC_DAEMON_ALLOWEDHOSTS: '["offersync.internal"]',
  };
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the daemon on 0.0.0.0', { timeout: 120_000 }, () => {
  it('passes its own healthcheck, answers allowed names only, GET and HEAD only', async () => {
    const daemon = cli(['daemon']);
    try {
      let ready: number | null = 1;
      for (let i = 0; i < 30 && ready !== 0; i++) {
        const probe = cli(['healthcheck', '--ready']);
        ready = await probe.exited;
        if (ready !== 0) await new Promise((r) => setTimeout(r, 500));
      }
      expect(ready, daemon.output()).toBe(0);
      expect(await cli(['healthcheck']).exited).toBe(0);
      expect((await ask('/readyz', `localhost:${port}`)).status).toBe(200);
      expect((await ask('/metrics', `offersync.internal:${port}`)).status).toBe(200);
      expect((await ask('/metrics', `attacker.example:${port}`)).status).toBe(421);
      expect((await ask('/', `attacker.example:${port}`)).status).toBe(421);
      expect(await ask('/metrics', `127.0.0.1:${port}`, 'POST')).toEqual({ status: 405, allow: 'GET, HEAD' });
    } finally {
      daemon.child.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
    }
  });
});
