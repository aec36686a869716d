// Control characters in data (a file name with a newline and an ESC sequence, external_ids and titles holding
// OSC title changes, screen clears and C1 controls) never reach the terminal raw: validate in every human format,
// plan, reconcile's summary, status and the pretty log lines show them as escapes, and no line can be forged.
// The CLI runs as a child process against the sandbox on 127.0.0.1.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { type CliRun, cliEnv, runCli } from '../support/cli.ts';

const KEY = 'terminal-key-77';
/** A file name that, printed raw, starts a line of its own reading as a compiler's error, then clears the screen. */
const EVIL_FILE = 'evil\nforged.json:9:9: error: all good\x1b[2J.json';
const TITLE_CHANGE = '\x1b]0;pwned\x07\x1b[2J';
/** What a person reads instead. */
const SHOWN_FILE = 'evil\\nforged.json:9:9: error: all good\\x1b[2J.json';
const SHOWN_TITLE_CHANGE = '\\x1b]0;pwned\\x07\\x1b[2J';

let sandbox: RunningSandbox;
let dir = '';

function run(args: string[]): Promise<CliRun> {
  return runCli(args, { cwd: dir, env: cliEnv({ dir, baseUrl: sandbox.url, apiKey: KEY }) });
}

/** No control character but the printer's own newline, and no line that data started. */
function expectSafe(what: string, text: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the test
  const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/u.exec(text);
  expect(raw === null ? null : `U+${raw[0].codePointAt(0)!.toString(16).padStart(4, '0')}`, `${what}: raw`).toBeNull();
  for (const line of text.split('\n')) expect(line, `${what}: a forged line`).not.toMatch(/^forged/);
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  dir = mkdtempSync(join(tmpdir(), 'offersync-terminal-'));
  mkdirSync(join(dir, 'catalogue', 'items'), { recursive: true });
  writeFileSync(
    join(dir, 'catalogue', 'items', EVIL_FILE),
    JSON.stringify([{ external_id: TITLE_CHANGE, title: 'T', price: 'x' }]),
  );
  writeFileSync(
    join(dir, 'catalogue', 'items', 'ok.json'),
    JSON.stringify([
      { external_id: 'red\x1b[31m\u009b2J', title: 'Title\x1b]0;t2\x07', price: 100 },
      { external_id: 'refused\r\nforged: ok', title: 'Refused', price: 100, status: 'refunded' },
    ]),
  );
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('control characters in data, on a terminal', () => {
  it('validate (text, gcc, github) shows them escaped', async () => {
    for (const format of ['text', 'gcc', 'github']) {
      const r = await run(['validate', '--format', format]);
      expect(r.code).toBe(1);
      expectSafe(`validate --format ${format}`, r.stdout + r.stderr);
      expect(r.stdout).toContain(SHOWN_TITLE_CHANGE);
    }
    const text = await run(['validate']);
    expect(text.stdout).toContain(`items/${SHOWN_FILE}:1:`);
    const gcc = await run(['validate', '--format', 'gcc']);
    expect(gcc.stdout).toContain(`items/${SHOWN_FILE}:1:`);
    expect(gcc.stdout.trimEnd().split('\n')).toHaveLength(1);
  }, 60_000);

  it('plan, reconcile, status and the pretty log lines show them escaped', async () => {
    const plan = await run(['plan', '--log-format', 'pretty']);
    // Changes pending, but an invalid offer in the catalogue: the plan is no all-clear, so 1, not 3.
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('the catalogue has 1 invalid offer');
    expect(plan.stdout).toContain('red\\x1b[31m\\u009b2J');
    expect(plan.stdout).toContain(SHOWN_FILE);
    expectSafe('plan', plan.stdout + plan.stderr);

    const reconcile = await run(['reconcile', '--log-format', 'pretty']);
    expect(reconcile.code).toBe(1);
    expect(reconcile.stdout).toContain('refused\\r\\nforged: ok');
    expect(reconcile.stderr).toMatch(/WARN {2}offer failed/);
    expectSafe('reconcile', reconcile.stdout + reconcile.stderr);

    const status = await run(['status']);
    expect(status.stdout).toContain('refused\\r\\nforged: ok');
    expectSafe('status', status.stdout + status.stderr);
  }, 60_000);
});
