// A marketplace that quotes the credentials it refused (`The credentials are invalid: {"login": ..., "password":
// ...}`, JSON-escaped, \uXXXX, URL-encoded): what a person reads afterwards never holds them. The CLI and the
// daemon run as child processes against the sandbox on 127.0.0.1; asserted are stdout and stderr, every row of
// the state db, `offersync status`, `plan` (text, --json, --out), the status page and webhook bodies.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { CLI, type CliRun, cliEnv, runCli } from '../support/cli.ts';
import { freePort } from '../support/ports.ts';

const KEY = 'echo-key-4242';
// Each value carries a marker of letters and digits, which no escaping changes: a text without the marker holds
// no form of the value, nor a piece of one.
const LONG = { login: 'Lg8m user/x', password: 'Pw7q"\\é/€nd' };
const MARKERS = ['Lg8m', 'Pw7q'];
// One and two characters: blanked where they stand as the value, not inside words.
const SHORT = { login: 'zq', password: 'a' };

let sandbox: RunningSandbox;
let dir = '';

const env = (): NodeJS.ProcessEnv => cliEnv({ dir, baseUrl: sandbox.url, apiKey: KEY, logLevel: 'debug' });

function run(args: string[]): Promise<CliRun> {
  return runCli(args, { cwd: dir, env: env() });
}

/** Fails when `text` holds a credential: a marker of a long value, or a short one quoted as a value. */
function expectNoCredential(what: string, text: string): void {
  for (const m of MARKERS) expect(text, `${what} holds ${m}`).not.toContain(m);
  expect(text, `${what} quotes the short login`).not.toMatch(/(?<![\p{L}\p{N}])zq(?![\p{L}\p{N}])/u);
  expect(text, `${what} quotes the short password`).not.toMatch(/(?:"|&quot;|&#34;)a(?:\\?"|&quot;|&#34;)|=a\b/);
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY], faults: { echoCredentials: true } });
  dir = mkdtempSync(join(tmpdir(), 'offersync-echo-'));
  mkdirSync(join(dir, 'catalogue', 'accounts'), { recursive: true });
  writeFileSync(
    join(dir, 'catalogue', 'accounts', 'a.json'),
    JSON.stringify([
      { external_id: 'acc-long', title: 'Long credentials', price: 5000, credentials: LONG },
      { external_id: 'acc-short', title: 'Short credentials', price: 5000, credentials: SHORT },
    ]),
  );
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('credentials a marketplace quotes back', () => {
  it('reconcile, status, plan and the state db show the refusal without the credentials', async () => {
    const r = await run(['reconcile']);
    expect(r.code).toBe(1);
    // The refusal is reported, with the server's words around the values.
    expect(r.stdout).toContain('The credentials are invalid: {"login": "[REDACTED]", "password": "[REDACTED]"}');
    expect(r.stderr).toMatch(/offer failed/);
    expectNoCredential('reconcile stdout', r.stdout);
    expectNoCredential('reconcile stderr', r.stderr);

    const db = new Database(join(dir, 'state', 'state.db'), { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    const rows = JSON.stringify(tables.map((t) => db.prepare(`SELECT * FROM "${t.name}"`).all()));
    db.close();
    expect(rows).toContain('The credentials are invalid');
    expectNoCredential('the state db', rows);

    const status = await run(['status']);
    expect(status.stdout).toContain('acc-long');
    expectNoCredential('status', status.stdout + status.stderr);

    const planFile = join(dir, 'plan.json');
    for (const args of [['plan'], ['plan', '--json'], ['plan', '--out', planFile]]) {
      const p = await run(args);
      expectNoCredential(args.join(' '), p.stdout + p.stderr);
    }
    expectNoCredential('the saved plan', readFileSync(planFile, 'utf8'));
  }, 90_000);

  it('the daemon: logs, the status page and webhook bodies show the refusal without the credentials', async () => {
    const got: string[] = [];
    const hook = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        got.push(raw);
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    const healthPort = await freePort();
    const config = join(dir, 'daemon.yaml');
    writeFileSync(
      config,
      [
        'daemon:',
        '  healthHost: 127.0.0.1',
        `  healthPort: ${healthPort}`,
        'notify:',
        `  webhooks: ["http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook"]`,
        '',
      ].join('\n'),
    );
    // A new state db, so the refusals are new to the webhooks.
    const daemon: ChildProcess = spawn(process.execPath, [...CLI, 'daemon', '--config', config], {
      cwd: dir,
      env: { ...env(), OFFERSYNC_STATE_DB: join(dir, 'daemon-state', 'state.db') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    daemon.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    daemon.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<void>((r) => daemon.on('exit', () => r()));
    try {
      const end = Date.now() + 60_000;
      let page = '';
      while (Date.now() < end) {
        page = await fetch(`http://127.0.0.1:${healthPort}/`)
          .then((r) => r.text())
          .catch(() => '');
        if (got.length >= 2 && page.includes('acc-short') && page.includes('acc-long')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(got.length).toBeGreaterThanOrEqual(2);
      expect(got.join('\n')).toContain('The credentials are invalid');
      expect(page).toContain('The credentials are invalid');
      for (const body of got) expectNoCredential('a webhook body', body);
      expectNoCredential('the status page', page);
    } finally {
      daemon.kill('SIGTERM');
      await exited;
      await new Promise<void>((r) => hook.close(() => r()));
    }
    expect(out).toMatch(/offer failed/);
    expectNoCredential('the daemon output', out);
  }, 90_000);
});
