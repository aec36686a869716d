import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { runMain } from '../support/captured-io.ts';
import { type CliRun, cliEnv, runCli } from '../support/cli.ts';
import { type SandboxProcess, startSandboxProcess } from '../support/sandbox-process.ts';

const EXAMPLE = fileURLToPath(new URL('../../config/example-catalogue', import.meta.url));
const KEY = 'cli-e2e-key-5555';

let sandbox: SandboxProcess;
let baseUrl = '';
let dir = '';

/** The binary as a child process: its exit code, and what it printed, secrets scrubbed by a process of its own. */
function run(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, { cwd: dir, env: cliEnv({ dir, baseUrl, apiKey: KEY, logLevel: 'debug' }, env) });
}

/**
 * The same command through main in this process, for the variants of a case whose exit code the binary already
 * showed in a child process: a process start costs about a second of CPU.
 */
function runIn(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runMain(args, { cwd: dir, env: cliEnv({ dir, baseUrl, apiKey: KEY, logLevel: 'debug' }, env) });
}

async function counters(): Promise<{ total: number; writes: number }> {
  return (await fetch(`${baseUrl}/__sandbox/counters`)).json() as Promise<{ total: number; writes: number }>;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'offersync-cli-'));
  cpSync(EXAMPLE, join(dir, 'catalogue'), { recursive: true });
  sandbox = await startSandboxProcess(KEY);
  baseUrl = sandbox.url;
});

afterAll(() => {
  sandbox?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Each test starts several CLI processes: on a busy host that alone can take 30 s.
describe('offersync CLI against the sandbox process', { timeout: 120_000 }, () => {
  it('prints its commands and version', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/reconcile .*\n.*plan/s);
    const version = await runIn(['--version']);
    expect(version.stdout).toMatch(/^offersync \d+\.\d+\.\d+/);
    const unknown = await runIn(['frobnicate']);
    expect(unknown.code).toBe(2);
  });

  it('plan shows the creates, exits 3, and sends no write', async () => {
    const before = await counters();
    const plan = await run(['plan']);
    expect(plan.code, plan.stderr).toBe(3);
    expect(plan.stdout).toMatch(/Accounts: 6 create/);
    expect(plan.stdout).toMatch(/\+ create {2}\S+/);
    expect((await counters()).writes).toBe(before.writes);
    const json = await runIn(['plan', '--json']);
    expect(json.code).toBe(3);
    const parsed = JSON.parse(json.stdout) as { changes: boolean; actions: { type: string }[] };
    expect(parsed.changes).toBe(true);
    expect(json.stdout).not.toMatch(/password/i);
  });

  it('reconcile converges (exit 0), then plan says no changes (exit 0) and status knows the offers', async () => {
    const rec = await run(['reconcile']);
    expect(rec.code, rec.stderr).toBe(0);
    expect(rec.stdout.match(/^ {2}\+ created {2}acc-/gm)).toHaveLength(6);
    expect(rec.stdout).toMatch(/Converged/);
    const plan = await run(['plan']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/No changes/);
    const status = await run(['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/account\s+\d+ listed/);
    expect(status.stdout).toMatch(/reconcile converged/);
    // The rate `auto` learnt for the next run.
    expect(status.stdout).toMatch(/Request rate learnt \(rateLimit\.ratePerSec: auto\): [\d.]+\/s/);
    // Logs at debug level: neither the key nor any password of the catalogue.
    const passwords = [
      ...readFileSync(join(dir, 'catalogue', 'accounts', 'eu-west.json'), 'utf8').matchAll(
        /"password"\s*:\s*"([^"]+)"/g,
      ),
    ].map((m) => m[1]!);
    for (const out of [rec.stderr, rec.stdout, plan.stderr, status.stdout]) {
      expect(out).not.toContain(KEY);
      for (const p of passwords) expect(out).not.toContain(p);
    }
  });

  it('a failed offer exits 1 and names the file, the external_id and the reason', async () => {
    writeFileSync(
      join(dir, 'catalogue', 'items', 'broken.json'),
      JSON.stringify([{ external_id: 'bad-price', title: 'x', price: -5 }]),
    );
    const rec = await run(['reconcile']);
    expect(rec.code).toBe(1);
    expect(rec.stdout).toMatch(/bad-price/);
    expect(rec.stdout).toMatch(/items\/broken\.json/);
    expect(rec.stdout).toMatch(/price/);
    rmSync(join(dir, 'catalogue', 'items', 'broken.json'));
  });

  it('bad configuration and a missing key exit 2 with a message naming what to fix', async () => {
    const noKey = await run(['reconcile'], { OFFERSYNC_API_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/OFFERSYNC_API_KEY/);
    const badUrl = await runIn(['reconcile'], { OFFERSYNC_BASE_URL: 'http://marketplace.example.com' });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/https|insecure/);
    writeFileSync(join(dir, 'bad.yaml'), 'rateLimit:\n  ratePerSec: fast\n');
    const badFile = await runIn(['plan', '--config', join(dir, 'bad.yaml')]);
    expect(badFile.code).toBe(2);
    expect(badFile.stderr).toMatch(/rateLimit\.ratePerSec/);
    const flag = await runIn(['reconcile', '--no-such-flag']);
    expect(flag.code).toBe(2);
  });

  it('a wrong key stops before any write with the marketplace message, exit 1', async () => {
    const rec = await run(['reconcile'], { OFFERSYNC_API_KEY: 'wrong-key-1234' });
    expect(rec.code).toBe(1);
    expect(rec.stderr).toMatch(/Unauthenticated/);
    expect(rec.stderr).not.toContain('wrong-key-1234');
  });

  it('a held writer lease exits 4 at once, or after --lock-timeout; a bad duration exits 2', async () => {
    const store = await openStateStore(join(dir, 'state', 'state.db'));
    const claim = { holder: 'busy-instance', pid: 77, hostname: 'cron-host', scope: 'another-boot' };
    expect((await store.acquireLease(claim, 60_000)).ok).toBe(true);
    try {
      const now = await run(['reconcile']);
      expect(now.code).toBe(4);
      expect(now.stderr).toMatch(/instance busy-instance, pid 77 on cron-host\) holds the state db until/);
      const waited = await runIn(['reconcile', '--lock-timeout', '300ms']);
      expect(waited.code).toBe(4);
      expect(waited.stderr).toMatch(/waited 300 ms/);
      const bad = await runIn(['reconcile', '--lock-timeout', 'soon']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--lock-timeout expects a duration/);
    } finally {
      await store.releaseLease('busy-instance');
      store.close();
    }
    expect((await runIn(['reconcile', '--lock-timeout', '5s'])).code).toBe(0);
  });

  it('demo runs the example catalogue end to end on its own sandbox', async () => {
    const demo = await run(['demo'], { OFFERSYNC_LOG_LEVEL: 'warn' });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/Converged/);
    expect(demo.stdout).toMatch(/No changes/);
  });
});
