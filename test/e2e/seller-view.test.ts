// What a new seller reads from the CLI, following the README with a 30-account semicolon CSV exported from a
// spreadsheet: the CLI's main (in this process; the daemon beside a reconcile a child process) against the sandbox
// on 127.0.0.1, stdout and stderr as the commands print them.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/sandbox-server.ts';
import type { RunningSandbox } from '../../src/sandbox/sandbox-options.ts';
import { runMain } from '../support/captured-io.ts';
import { CLI } from '../support/cli.ts';
import { freePort } from '../support/ports.ts';
import { until } from '../support/until.ts';

const KEY = 'seller-view-key-7777';
let sandbox: RunningSandbox;
let dir = '';
const shop = () => join(dir, 'shop');
const csvPath = () => join(shop(), 'accounts', 'euw-stock.csv');

/** 30 accounts as a European spreadsheet exports them: semicolons, decimal commas, CRLF; #2 at 1.299,00. */
function rows(edit: (id: number, cells: string[]) => string[] = (_, c) => c): string {
  const lines = ['external_id;title;price;game;server;level;credentials.login;credentials.password'];
  for (let i = 1; i <= 30; i++) {
    const id = `lol-acc-${String(i).padStart(3, '0')}`;
    const price = i === 2 ? '1.299,00' : `${10 + i},99`;
    lines.push(
      edit(i, [
        id,
        `EUW Gold account ${i}`,
        price,
        'league-of-legends',
        'euw',
        String(30 + i),
        `login${i}`,
        `pw-${i}`,
      ]).join(';'),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  OFFERSYNC_BASE_URL: sandbox.url,
  OFFERSYNC_API_KEY: KEY,
  OFFERSYNC_CATALOGUE_DIR: shop(),
  OFFERSYNC_STATE_DB: join(dir, 'state', 'state.db'),
  OFFERSYNC_LOG_LEVEL: 'warn',
  ...extra,
});
const cli = (args: readonly string[], extra: Record<string, string> = {}) =>
  runMain(args, { cwd: dir, env: env(extra) });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'offersync-seller-view-'));
  mkdirSync(join(shop(), 'accounts'), { recursive: true });
  writeFileSync(csvPath(), rows());
  sandbox = await startSandbox({ apiKeys: [KEY] });
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('what a seller reads', { timeout: 180_000 }, () => {
  it('plan shows each create with its title and price as read, and ends with the counts', async () => {
    const plan = await cli(['plan']);
    expect(plan.code, plan.stderr).toBe(3);
    expect(plan.stdout).toContain('+ create  lol-acc-002  "EUW Gold account 2", 1299.00  (accounts/euw-stock.csv;');
    expect(plan.stdout.trimEnd().split('\n').at(-1)).toBe('Plan: 30 to create, 0 to update, 0 to archive.');
  });

  it('reconcile lists every offer it created, and closes with one line of counts', async () => {
    const rec = await cli(['reconcile']);
    expect(rec.code, rec.stderr).toBe(0);
    expect(rec.stdout).toMatch(/^Accounts:\n/);
    expect(rec.stdout).toContain('+ created  lol-acc-030  "EUW Gold account 30", 40.99  (accounts/euw-stock.csv)');
    expect(rec.stdout.match(/\+ created /g)).toHaveLength(30);
    expect(rec.stdout).not.toMatch(/pw-\d/);
    expect(rec.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^Converged: the marketplace matches the catalogue\. 30 created; \d+ request\(s\) in [\d.]+ s \(run \S+\)\.$/,
    );
  });

  it('a duplicated external_id: the archive named with its reason, the duplicate once as invalid', async () => {
    // The seller pasted #15's id over #16's, and lowered #4's price.
    writeFileSync(
      csvPath(),
      rows((i, c) =>
        i === 16 ? ['lol-acc-015', ...c.slice(1)] : i === 4 ? [c[0]!, c[1]!, '13,99', ...c.slice(3)] : c,
      ),
    );
    const rec = await cli(['reconcile']);
    expect(rec.code, rec.stderr).toBe(1);
    const out = rec.stdout;
    expect(out).toContain(
      '  ! INVALID  lol-acc-015  (accounts/euw-stock.csv:16, accounts/euw-stock.csv:17): external_id:',
    );
    expect(out).toContain(
      '  ~ updated  lol-acc-004  (accounts/euw-stock.csv)\n      price: 14.99 (1499 cents) -> 13.99 (1399 cents)',
    );
    expect(out).toContain('  - archived lol-acc-016  (removed from the catalogue)');
    expect(out).not.toMatch(/FAILED|failed/);
    const last = out.trimEnd().split('\n').at(-1)!;
    expect(last).toMatch(/ 1 updated, 1 archived, 27 unchanged, 1 invalid; \d+ request\(s\)/);
    const runId = /\(run (\S+)\)\.$/.exec(last)![1]!;

    const status = await cli(['status']);
    expect(status.stdout).toContain(
      `Archived by the last run (run ${runId}):\n  account lol-acc-016 (removed from the catalogue)`,
    );
    const full = await cli(['status', '--run', runId]);
    expect(full.code).toBe(0);
    expect(full.stdout).toContain('  - archived lol-acc-016  (removed from the catalogue)');
    expect(full.stdout).toContain(`(run ${runId}).`);
    const unknown = await cli(['status', '--run', '20200101T000000-000000']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no report of run 20200101T000000-000000 in .*runs/);
  });

  it('invalid catalogue offers are invalid, once each, and nothing not sent is printed as sent', async () => {
    writeFileSync(
      csvPath(),
      rows((i, c) =>
        i === 16 ? ['lol-acc-015', ...c.slice(1)] : i === 20 ? [c[0]!, c[1]!, '12,3x', ...c.slice(3)] : c,
      ),
    );
    const rec = await cli(['reconcile']);
    expect(rec.stdout).toContain('! INVALID  lol-acc-020');
    expect(rec.stdout).not.toMatch(/FAILED|\bfailed\b/);
    expect(rec.stdout.trimEnd().split('\n').at(-1)).toMatch(/ 2 invalid;/);
    writeFileSync(csvPath(), rows());
  });

  it('a mistyped catalogue directory stops before any request, in one line with the nearest name', async () => {
    sandbox.resetCounters();
    const rec = await cli(['reconcile', '--catalogue', './shopp']);
    expect(rec.code).toBe(2);
    expect(rec.stdout).toBe('');
    expect(rec.stderr.trim().split('\n')).toEqual([
      `offersync reconcile: cannot read the catalogue directory ${join(dir, 'shopp')} (ENOENT: no such directory); ` +
        `did you mean ${join(dir, 'shop')}?: give its path with --catalogue (or OFFERSYNC_CATALOGUE_DIR, or ` +
        'catalogue.dir in the config file). Nothing was sent.',
    ]);
    expect(sandbox.counters().total).toBe(0);
  });

  it('an unknown command or flag gets the nearest name, and --only takes the folder names', async () => {
    const plann = await cli(['plann']);
    expect(plann.code).toBe(2);
    expect(plann.stdout).toBe('');
    expect(plann.stderr).toBe(
      "offersync: unknown command 'plann'; did you mean 'plan'? ('offersync --help' lists the commands)\n",
    );
    const catalog = await cli(['plan', '--catalog', shop()]);
    expect(catalog.code).toBe(2);
    expect(catalog.stderr).toContain("unknown flag '--catalog'; did you mean '--catalogue'?");
    const only = await cli(['plan', '--only', 'accounts,top-ups']);
    expect([0, 3], only.stderr).toContain(only.code);
    expect(only.stdout).toMatch(/targeted run \(--only [^)]*\)/);
    const wrong = await cli(['plan', '--only', 'acounts']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("got 'acounts'; did you mean 'accounts'?");
  });

  it('a stale saved plan is refused field by field, as the seller wrote the price', async () => {
    writeFileSync(
      csvPath(),
      rows((i, c) => (i === 4 ? [c[0]!, c[1]!, '11,99', ...c.slice(3)] : c)),
    );
    const saved = await cli(['plan', '--out', 'next.plan']);
    expect(saved.code, saved.stderr).toBe(3);
    writeFileSync(
      csvPath(),
      rows((i, c) => (i === 4 ? [c[0]!, c[1]!, '10,99', ...c.slice(3)] : c)),
    );
    sandbox.resetCounters();
    const refused = await cli(['reconcile', '--plan', 'next.plan']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('  lol-acc-004 price: planned 11.99, the catalogue now says 10.99');
    expect(sandbox.counters().writes).toBe(0);
  });

  it('validate refuses a status the API document does not list, and needs no API key', async () => {
    const other = join(dir, 'statuses');
    mkdirSync(join(other, 'items'), { recursive: true });
    writeFileSync(join(other, 'items', 'stock.csv'), 'external_id;title;price;status\r\ngold-1;Gold;24,99;flying\r\n');
    const v = await cli(['validate', other, '--format', 'gcc'], {
      OFFERSYNC_API_KEY: '',
      OFFERSYNC_API_KEY_FILE: join(dir, 'no-such-key'),
    });
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(
      'statuses/items/stock.csv:2:19: error: [gold-1] status: expected one of draft, pending, listed, processing, ' +
        'sold, ' +
        "refunded, archived, got 'flying'",
    );
  });
});

describe('sync now', { timeout: 180_000 }, () => {
  let daemon: ChildProcess | undefined;
  afterAll(async () => {
    if (daemon && daemon.exitCode === null) {
      const gone = new Promise((r) => daemon!.once('exit', r));
      daemon.kill('SIGTERM');
      await gone;
    }
  });

  it('reconcile beside a daemon asks it to sync now and prints that run; its start line names the page', async () => {
    writeFileSync(csvPath(), rows());
    const port = await freePort();
    daemon = spawn(process.execPath, [...CLI, 'daemon'], {
      cwd: dir,
      env: env({
        OFFERSYNC_DAEMON_HEALTHPORT: String(port),
        OFFERSYNC_SCHEDULE_TICK: '0 0 1 1 *',
        OFFERSYNC_LOG_LEVEL: 'info',
      }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    daemon.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const started = await until(
      'the daemon start line',
      async () => /"msg":"watching [^"]*"/.exec(stderr)?.[0],
      60_000,
    );
    expect(started).toContain(`status page on http://127.0.0.1:${port}/`);

    // The catalogue changes behind its back: the seller wants it synced now, not at the next tick.
    writeFileSync(
      csvPath(),
      rows((i, c) => (i === 7 ? [c[0]!, 'EUW Gold account 7 (Platinum now)', ...c.slice(2)] : c)),
    );
    const rec = await cli(['reconcile']);
    expect(rec.code, rec.stderr).toBe(0);
    expect(rec.stderr).toMatch(/asking it to sync now/);
    expect(rec.stderr).toMatch(/the daemon ran it as run \S+:/);
    expect(rec.stdout.trimEnd().split('\n').at(-1)).toMatch(/^Converged: the marketplace matches the catalogue\./);
  });
});
