// Credentials written with the wrong type (a string for the object, a number for a password or a login) are an
// error that names the field and the shape expected, and never quotes the value: in validate (every format),
// plan, plan --json and the daemon's status page. The CLI and the daemon run as child processes against the
// sandbox on 127.0.0.1.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { startDaemon } from '../support/daemon-process.ts';
import { freePort } from '../support/ports.ts';

const KEY = 'wrong-type-key-31';
const AS_STRING = 'Str9user:Str9pass';
const NUMERIC_PASSWORD = 918273645;
const NUMERIC_LOGIN = 5647382910;
const VALUES = ['Str9', String(NUMERIC_PASSWORD), String(NUMERIC_LOGIN)];

let sandbox: RunningSandbox;
let dir = '';

const env = (): NodeJS.ProcessEnv => cliEnv({ dir, baseUrl: sandbox.url, apiKey: KEY });

/** The CLI run to its exit, with all it printed, stdout then stderr. */
async function run(args: string[]): Promise<{ code: number | null; out: string }> {
  const r = await runCli(args, { cwd: dir, env: env() });
  return { code: r.code, out: r.stdout + r.stderr };
}

function expectNotQuoted(what: string, text: string): void {
  for (const v of VALUES) expect(text, `${what} quotes ${v}`).not.toContain(v);
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  dir = mkdtempSync(join(tmpdir(), 'offersync-wrong-type-'));
  mkdirSync(join(dir, 'catalogue', 'accounts'), { recursive: true });
  writeFileSync(
    join(dir, 'catalogue', 'accounts', 'a.json'),
    JSON.stringify(
      [
        { external_id: 'acc-string', title: 'As a string', price: 100, credentials: AS_STRING },
        { external_id: 'acc-number', title: 'Numbers', price: 100, credentials: { password: NUMERIC_PASSWORD } },
        { external_id: 'acc-login', title: 'Legacy login', price: 100, login: NUMERIC_LOGIN },
        {
          external_id: 'acc-ok',
          title: 'Fine',
          price: 100,
          credentials: { login: 'fine-user', password: 'Fine-pw-1' },
        },
      ],
      null,
      1,
    ),
  );
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('credentials of the wrong type', () => {
  it('validate reports each as an error naming the field and the shape, without the value', async () => {
    const text = await run(['validate']);
    expect(text.code).toBe(1);
    const shape = 'expected an object {login, password, email_login, email_password}, got a string';
    expect(text.out).toMatch(/error .*\[acc-string\] credentials: (.*)/);
    expect(text.out).toContain(`[acc-string] credentials: ${shape}`);
    expect(text.out).toMatch(/error .*\[acc-number\] credentials\.password: expected a string in quotes, got a number/);
    expect(text.out).toMatch(/error .*\[acc-login\] login: expected a string in quotes, got a number/);
    expectNotQuoted('validate', text.out);
    for (const format of ['json', 'gcc', 'github']) {
      const r = await run(['validate', '--format', format]);
      expect(r.code).toBe(1);
      expect(r.out).toContain('acc-number');
      expectNotQuoted(`validate --format ${format}`, r.out);
    }
  }, 60_000);

  it('plan and plan --json name the problems without the values', async () => {
    for (const args of [['plan'], ['plan', '--json']]) {
      const r = await run(args);
      expect(r.out).toContain('acc-string');
      expect(r.out).toMatch(/got a string/);
      expectNotQuoted(args.join(' '), r.out);
    }
  }, 60_000);

  it("the daemon's status page names the problems without the values", async () => {
    const port = await freePort();
    const config = join(dir, 'daemon.yaml');
    writeFileSync(config, `daemon:\n  healthHost: 127.0.0.1\n  healthPort: ${port}\n`);
    const daemon = startDaemon(config, env(), { cwd: dir });
    try {
      let page = '';
      const end = Date.now() + 30_000;
      while (Date.now() < end && !page.includes('acc-number')) {
        page = await fetch(`http://127.0.0.1:${port}/`)
          .then((r) => r.text())
          .catch(() => '');
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(page).toContain('acc-number');
      expect(page).toMatch(/got a string/);
      expectNotQuoted('the status page', page);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  }, 60_000);
});
