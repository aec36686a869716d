// offersync reconcile as a child process, behind a marketplace whose first answer is a 429 asking for a wait of
// 999999999 s (a proxy in front of the sandbox, both on 127.0.0.1). The run waits the configured cap, warns once
// saying what was asked and what it waits, converges, and Node never warns of an overflowing timer.
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { runCli } from '../support/cli.ts';

const KEY = 'retry-after-key-31';

let sandbox: RunningSandbox;
let proxy: Server;
let proxyUrl = '';
let dir = '';
let refused = 0;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (refused === 0) {
      refused++;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '999999999' });
      return void res.end('{"message":"Too Many Attempts."}');
    }
    const headers: Record<string, string> = {};
    for (const h of ['authorization', 'content-type', 'idempotency-key', 'accept']) {
      const v = req.headers[h];
      if (typeof v === 'string') headers[h] = v;
    }
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const answer = await fetch(`${sandbox.url}${req.url}`, { method: req.method!, headers, ...(body ? { body } : {}) });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'offersync-retry-after-'));
  mkdirSync(join(dir, 'catalogue', 'items'), { recursive: true });
  writeFileSync(
    join(dir, 'catalogue', 'items', 'stock.json'),
    JSON.stringify([{ external_id: 'ra-1', title: 'Starter pack', price: 499, stock: 10, type: 'gold' }]),
  );
});

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function reconcile(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCli(['reconcile'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      OFFERSYNC_BASE_URL: proxyUrl,
      OFFERSYNC_API_KEY: KEY,
      OFFERSYNC_CATALOGUE_DIR: join(dir, 'catalogue'),
      OFFERSYNC_STATE_DB: join(dir, 'state', 'state.db'),
      OFFERSYNC_RATELIMIT_MAXRETRYAFTERSECONDS: '1',
      OFFERSYNC_LOG_FORMAT: 'json',
    },
  });
}

describe('a marketplace asking for a wait of 999999999 s', { timeout: 120_000 }, () => {
  it('reconcile waits rateLimit.maxRetryAfterSeconds, warns once, converges', async () => {
    const run = await reconcile();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Converged/);
    expect(refused).toBe(1);
    const warnings = run.stderr.split('\n').filter((l) => l.includes('asked offersync to wait'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({
      level: 40,
      askedMs: 999_999_999_000,
      waitMs: 1000,
      msg: expect.stringMatching(/asked offersync to wait 999999999 s; offersync waits 1 s/),
    });
    expect(run.stderr).not.toContain('TimeoutOverflowWarning');
    expect(sandbox.dump().items.map((i) => i.external_id)).toEqual(['ra-1']);
  });
});
