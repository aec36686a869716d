// A new seller's first hour, through the CLI's main (in this process: what is tested is what it prints and sends,
// not the process) against `offersync sandbox` on 127.0.0.1: a workbook whose price
// column says EUR lists 89 at 89.00; one that says no unit and mixes 24.99 with 89 is an error the plan shows; a
// new offer priced under a tenth of the seller's others is held (plan, reconcile, status) until its price changes
// or --allow-price-change. What the CLI printed is kept in test/output/first-hour/ for people to read.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mainCaptured } from '../support/captured-io.ts';
import { type CliRun, cliEnv } from '../support/cli.ts';
import { type SandboxProcess, startSandboxProcess } from '../support/sandbox-process.ts';
import { sheetXlsx } from '../support/zip.ts';

const KEY = 'first-hour-e2e-key-4242';
const OUTPUT = fileURLToPath(new URL('../output/first-hour', import.meta.url));

let sandbox: SandboxProcess;
let baseUrl = '';
let dir = '';

async function runCli(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CliRun> {
  const r = await mainCaptured(args, opts);
  return { code: r.code, stdout: r.out, stderr: r.err };
}

async function seen(name: string, args: string[]): Promise<CliRun> {
  const r = await runCli(args, { cwd: dir, env: cliEnv({ dir, baseUrl, apiKey: KEY, logLevel: 'warn' }) });
  mkdirSync(OUTPUT, { recursive: true });
  writeFileSync(join(OUTPUT, `${name}.txt`), `$ offersync ${args.join(' ')}\n${r.stdout}${r.stderr}(exit ${r.code})\n`);
  return r;
}

async function accounts(): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${baseUrl}/__sandbox/dump`);
  return ((await res.json()) as { accounts: Record<string, unknown>[] }).accounts;
}

function catalogue(file: string, content: string | Buffer): void {
  mkdirSync(join(dir, 'catalogue', file, '..'), { recursive: true });
  writeFileSync(join(dir, 'catalogue', file), content);
}

const lol = (priceHeader: string) =>
  sheetXlsx([
    ['ID', 'Title', priceHeader, 'Rank', '#Bought for'],
    ['LOL-001', 'Gold II account', 24.99, 'Gold II', 8],
    ['LOL-002', 'Diamond account', 89, 'D4', 30],
    ['LOL-003', 'Master account', 179, 'Master', 60],
  ]);

beforeAll(async () => {
  sandbox = await startSandboxProcess(KEY);
  baseUrl = sandbox.url;
});

beforeEach(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = mkdtempSync(join(tmpdir(), 'offersync-first-hour-'));
  await fetch(`${baseUrl}/__sandbox/reset`, { method: 'POST', body: '{}' });
});

afterAll(() => {
  sandbox?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a seller’s first hour never costs money', { timeout: 180_000 }, () => {
  it('a stated-EUR price column: plan and reconcile list 24.99 and 89.00 (8900 cents), not 0.89', async () => {
    catalogue('accounts/lol-accounts.xlsx', lol('Price (EUR)'));
    const plan = await seen('stated-eur-plan', ['plan']);
    expect(plan.stdout).toContain('+ create  LOL-001  "Gold II account", 24.99');
    expect(plan.stdout).toContain('+ create  LOL-002  "Diamond account", 89.00');
    expect(plan.stdout).toContain('+ create  LOL-003  "Master account", 179.00');
    expect(plan.stdout).not.toMatch(/catalogue error|Warning/);
    expect((await seen('stated-eur-reconcile', ['reconcile'])).code).toBe(0);
    const listed = Object.fromEntries((await accounts()).map((a) => [a.external_id, a.price]));
    expect(listed).toEqual({ 'LOL-001': 2499, 'LOL-002': 8900, 'LOL-003': 17900 });
  });

  it('an unstated price column mixing 24.99 and 89: the plan names the column error; 89 is never sent', async () => {
    catalogue('accounts/lol-accounts.xlsx', lol('Price'));
    const plan = await seen('unstated-plan', ['plan']);
    expect(plan.stdout).toContain(
      "catalogue error accounts/lol-accounts.xlsx:1:3: (file): price: price column 'Price' mixes whole numbers " +
        '(Items!C3: 89, Items!C4: 179) with amounts that have a fraction (Items!C2: 24.99)',
    );
    expect(plan.stdout).toContain("say the unit in the header, e.g. 'Price (EUR)'");
    const reconcile = await seen('unstated-reconcile', ['reconcile']);
    expect(reconcile.code).toBe(1); // partial: the seller has something to fix
    expect((await accounts()).map((a) => [a.external_id, a.price])).toEqual([['LOL-001', 2499]]);
  });

  it('validate reads catalogue.priceUnit and catalogue.ignoreColumns as plan does', async () => {
    catalogue('accounts/lol-accounts.xlsx', lol('Price'));
    const env = (extra: Record<string, string>) => cliEnv({ dir, baseUrl, apiKey: KEY, logLevel: 'warn' }, extra);
    const refused = await runCli(['validate'], { cwd: dir, env: env({}) });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("price column 'Price' mixes whole numbers");
    const major = await runCli(['validate'], {
      cwd: dir,
      env: env({ OFFERSYNC_CATALOGUE_PRICEUNIT: '{"accounts":"major"}' }),
    });
    expect(major.stdout).toContain('0 errors, 0 warnings');
    expect(major.code).toBe(0);
  });

  it('a new offer under a tenth of the median of its game is held until its price changes', async () => {
    const offers = (cheap: number) =>
      JSON.stringify(
        [
          ['LOL-001', 2499],
          ['LOL-002', 3000],
          ['LOL-003', 3500],
          ['LOL-004', cheap],
        ].map(([id, price]) => ({ external_id: id, title: `Account ${id}`, price, game: 'lol' })),
      );
    catalogue('accounts/lol.json', offers(89));
    const plan = await seen('held-plan', ['plan']);
    expect(plan.stdout).toContain(
      "! blocked LOL-004  (price guard: not listed: this new offer's price 0.89 (accounts/lol.json) is under a " +
        'tenth of the median 30.00 of your other account offers of lol.',
    );
    expect(plan.stdout).toContain('+ create  LOL-003');
    const reconcile = await seen('held-reconcile', ['reconcile']);
    expect(reconcile.code).toBe(1);
    expect(reconcile.stdout).toContain('LOL-004');
    expect((await accounts()).map((a) => a.external_id).sort()).toEqual(['LOL-001', 'LOL-002', 'LOL-003']);
    const status = await seen('held-status', ['status']);
    expect(status.stdout).toContain('account.created=3 account.blocked=1');
    // Its price corrected: listed at once.
    catalogue('accounts/lol.json', offers(8900));
    expect((await seen('held-corrected', ['reconcile'])).code).toBe(0);
    expect((await accounts()).find((a) => a.external_id === 'LOL-004')?.price).toBe(8900);
  });

  it('catalogue warnings reach plan and reconcile, not only validate; a private # column is silent', async () => {
    catalogue('accounts/lol.csv', 'ID,Title,Price (EUR),#Bought for,Notes\nLOL-001,Gold,24.99,8,smurf\n');
    const warning =
      "catalogue warning accounts/lol.csv:1:34: Notes: column 'Notes' names no field of account offers; its cells " +
      "are not read: if it is your own, start its header with # ('#Notes') or list it in catalogue.ignoreColumns";
    const plan = await seen('warning-plan', ['plan']);
    expect(plan.stdout).toContain(warning);
    expect(plan.stdout).not.toContain('Bought for');
    const json = JSON.parse((await seen('warning-plan-json', ['plan', '--json'])).stdout) as Record<string, unknown>;
    expect(json.catalogue_warnings).toEqual([warning]);
    const reconcile = await seen('warning-reconcile', ['reconcile']);
    expect(reconcile.stdout).toContain(warning);
  });

  it("a sold account's external_id reused for another account: blocked, naming the fix, never silent", async () => {
    const sheet = (login: string) =>
      sheetXlsx([
        ['ID', 'Title', 'Price (EUR)', 'Login', 'Password'],
        ['LOL-001', 'Diamond account', 89, login, 'pw-1'],
      ]);
    catalogue('accounts/lol.xlsx', sheet('first-login'));
    expect((await seen('sold-first', ['reconcile'])).code).toBe(0);
    const sold = await fetch(`${baseUrl}/__sandbox/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'accounts', identifier: 'LOL-001', status: 'sold' }),
    });
    expect(sold.status).toBe(200);
    expect((await seen('sold-recorded', ['reconcile'])).code).toBe(0);
    // New stock under the sold id: the plan says so, with the fix, and does not claim all is well.
    catalogue('accounts/lol.xlsx', sheet('second-login'));
    const plan = await seen('sold-reused-plan', ['plan']);
    expect(plan.stdout).toContain(
      '! blocked LOL-001  (LOL-001 is sold; give this account a new external_id (accounts/lol.xlsx now gives it ' +
        "another account's login, which is never listed under a sold offer's id))",
    );
    const reconcile = await seen('sold-reused-reconcile', ['reconcile']);
    expect(reconcile.code).toBe(1);
    expect(reconcile.stdout).toContain('LOL-001 is sold; give this account a new external_id');
  });

  it('--allow-price-change lists the cheap new offer as it is', async () => {
    catalogue(
      'accounts/lol.json',
      JSON.stringify(
        [2499, 3000, 3500, 89].map((price, i) => ({ external_id: `A-${i}`, title: 'Account', price, game: 'lol' })),
      ),
    );
    expect((await seen('held-allowed', ['reconcile', '--allow-price-change'])).code).toBe(0);
    expect((await accounts()).find((a) => a.external_id === 'A-3')?.price).toBe(89);
  });
});
