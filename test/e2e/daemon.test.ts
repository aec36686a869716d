// The daemon as a child process: initial reconcile, a saved file reaches the sandbox, /healthz and /metrics
// answer, SIGTERM ends it with exit 0, and a second daemon on the same state db is refused.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';

const BIN = fileURLToPath(new URL('../../bin/offersync.js', import.meta.url));
const KEY = 'daemon-key-777';

let sandbox: RunningSandbox;
let dir: string;
let healthPort: number;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function startDaemon(): { child: ChildProcess; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'daemon', '--config', join(dir, 'offersync.yaml')], {
    env: { PATH: process.env.PATH, OFFERSYNC_API_KEY: KEY, OFFERSYNC_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => err, exited };
}

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function items(list: { external_id: string; price: number }[]): void {
  writeFileSync(
    join(dir, 'catalogue', 'items', 'stock.json'),
    JSON.stringify(list.map((i) => ({ ...i, title: `Item ${i.external_id}` }))),
  );
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  dir = mkdtempSync(join(tmpdir(), 'offersync-daemon-'));
  for (const sub of ['accounts', 'items', 'top-ups']) mkdirSync(join(dir, 'catalogue', sub), { recursive: true });
  healthPort = await freePort();
  writeFileSync(
    join(dir, 'offersync.yaml'),
    [
      `baseUrl: ${sandbox.url}`,
      'catalogue:\n  dir: ./catalogue',
      'state:\n  path: ./state/state.db',
      'rateLimit:\n  ratePerSec: 100\n  burst: 10',
      'daemon:\n  debounceMs: 100\n  healthHost: 127.0.0.1',
      `  healthPort: ${healthPort}`,
    ].join('\n') + '\n',
  );
  items([{ external_id: 'd-1', price: 100 }]);
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('offersync daemon', () => {
  it('reconciles at start and on every saved file, serves health and metrics, and stops cleanly on SIGTERM', async () => {
    const d = startDaemon();
    try {
      await until('the initial reconcile', () => (sandbox.dump().items.length === 1 ? true : undefined));
      const ready = await until('readyz', async () => {
        const r = await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => null);
        return r?.status === 200 ? r : undefined;
      });
      expect(((await ready.json()) as { ready: boolean }).ready).toBe(true);

      // A second daemon on the same state db refuses to write and says who holds it.
      const second = startDaemon();
      expect(await second.exited).toBe(1);
      expect(second.stderr()).toMatch(/holds the state db/);

      items([
        { external_id: 'd-1', price: 150 },
        { external_id: 'd-2', price: 200 },
      ]);
      await until('the change to reach the marketplace', () => {
        const dump = sandbox.dump().items;
        return dump.length === 2 && dump.find((i) => i.external_id === 'd-1')?.price === 150 ? true : undefined;
      });
      items([{ external_id: 'd-2', price: 200 }]);
      await until('the removal to archive d-1', () =>
        sandbox.dump().items.find((i) => i.external_id === 'd-1')?.status === 'archived' ? true : undefined,
      );

      const metrics = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
      expect(metrics).toMatch(/offersync_runs_total\{outcome="converged",trigger="start"\} 1/);
      expect(metrics).toMatch(/trigger="files"/);
    } finally {
      d.child.kill('SIGTERM');
    }
    expect(await d.exited).toBe(0);
    expect(d.stderr()).not.toContain(KEY);
  }, 60_000);
});
