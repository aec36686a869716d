// Trying a sale without reading code: `offersync sandbox sell` buys an account or units of an item on a running
// sandbox, and the next reconcile reports the sale and leaves the sold offer alone, as "Try a sale" in docs/runs.md
// says.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/captured-io.ts';
import { type CliRun, cliEnv } from '../support/cli.ts';
import { type SandboxProcess, startSandboxProcess } from '../support/sandbox-process.ts';

const KEY = 'sell-e2e-key-4242';
const EXAMPLE = fileURLToPath(new URL('../../config/example-catalogue', import.meta.url));

let sandbox: SandboxProcess;
let dir = '';

const run = (args: string[]): Promise<CliRun> =>
  runMain(args, { cwd: dir, env: cliEnv({ dir, baseUrl: sandbox.url, apiKey: KEY, logLevel: 'warn' }) });

async function dump(): Promise<Record<string, Record<string, unknown>[]>> {
  return (await (await fetch(`${sandbox.url}/__sandbox/dump`)).json()) as Record<string, Record<string, unknown>[]>;
}

beforeAll(async () => {
  sandbox = await startSandboxProcess(KEY);
  dir = mkdtempSync(join(tmpdir(), 'offersync-sell-'));
  cpSync(EXAMPLE, join(dir, 'catalogue'), { recursive: true });
  expect((await run(['reconcile'])).code).toBe(0);
});

afterAll(async () => {
  sandbox?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('offersync sandbox sell', () => {
  it('sells an account, and the next reconcile reports it and leaves it alone', async () => {
    const sold = await run(['sandbox', 'sell', 'acc-euw-001']);
    expect(sold.stdout).toMatch(/^Sold account acc-euw-001 \(marketplace id \d+\)/);
    expect(sold.code).toBe(0);
    const account = (await dump()).accounts!.find((a) => a.external_id === 'acc-euw-001')!;
    expect(account.status).toBe('sold');
    const next = await run(['reconcile']);
    // Named, so that the seller hands over the right account.
    expect(next.stdout).toContain('Sold since the last run, left alone (see sold.jsonl):');
    expect(next.stdout).toMatch(
      /^ {2}account acc-euw-001 \(EUW Gold II, 54 champions, ready for ranked\): sold, marketplace id \d+$/m,
    );
    const table = await run(['sales', '--since', '1h']);
    expect(table.stdout).toMatch(
      /^\S+ \S+\s+account\s+acc-euw-001\s+EUW Gold II, 54 champions, ready for \.\.\.\s+sold\s+24\.99$/m,
    );
    const again = await run(['reconcile']);
    expect(again.stdout).not.toContain('Sold since the last run');
    expect(again.stdout).toContain('1 offer(s) sold, refunded or processing before this run: left alone.');
    expect((await dump()).accounts!.find((a) => a.external_id === 'acc-euw-001')!.status).toBe('sold');
  });

  it('sells units of an item: its sold count rises and its stock falls', async () => {
    const before = (await dump()).items!.find((i) => i.external_id === 'item-skin-001')!;
    const sold = await run(['sandbox', 'sell', 'item-skin-001', '--quantity', '2']);
    expect(sold.code).toBe(0);
    expect(sold.stdout).toMatch(/^Sold 2 of item item-skin-001/);
    const after = (await dump()).items!.find((i) => i.external_id === 'item-skin-001')!;
    expect(Number(after.sold_count)).toBe(Number(before.sold_count ?? 0) + 2);
    if (before.stock !== null && before.stock !== undefined) expect(Number(after.stock)).toBe(Number(before.stock) - 2);
  });

  it('names what it cannot sell and what to do', async () => {
    const unknown = await run(['sandbox', 'sell', 'no-such-offer']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('the sandbox has no offer no-such-offer: run `offersync reconcile` first');
    const again = await run(['sandbox', 'sell', 'acc-euw-001']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('accounts acc-euw-001 is sold, not listed: nothing to buy');
    const nowhere = await runMain(['sandbox', 'sell', 'acc-euw-001', '--url', 'http://127.0.0.1:9'], {
      cwd: dir,
      env: { PATH: process.env.PATH },
    });
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('no sandbox answers at http://127.0.0.1:9');
  });
});
