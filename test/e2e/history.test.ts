// `offersync history` through the CLI's main (in this process) against the sandbox on 127.0.0.1: an item created,
// changed in the catalogue, edited on the website and patched back, sold, and archived; an account whose password
// changed. Each shows in order with its fields and the marketplace's answer, as text and as JSON; no credential is
// shown or stored; and the story outlives the runs the state db prunes (keepRuns 2). What the seller saw is kept in
// test/output/history/.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { OFFER_EVENTS_KEPT } from '../../src/state/kysely-state-store.ts';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { runMain } from '../support/captured-io.ts';
import { type CliRun, cliEnv } from '../support/cli.ts';

const KEY = 'history-e2e-key-4242';
const OUTPUT = fileURLToPath(new URL('../output/history', import.meta.url));
const PASSWORD_1 = 'hunter2-first-secret';
const PASSWORD_2 = 'correct-horse-battery';

let sandbox: RunningSandbox;
let dir = '';
const statePath = () => join(dir, 'state', 'state.db');

function run(args: string[]): Promise<CliRun> {
  return runMain(args, {
    cwd: dir,
    env: cliEnv({ dir, baseUrl: sandbox.url, apiKey: KEY, logLevel: 'warn' }, { OFFERSYNC_STATE_KEEPRUNS: '2' }),
  });
}

/** Runs the CLI and keeps what the seller saw, under the case's name. */
async function seen(name: string, args: string[]): Promise<CliRun> {
  const r = await run(args);
  mkdirSync(OUTPUT, { recursive: true });
  writeFileSync(join(OUTPUT, `${name}.txt`), `$ offersync ${args.join(' ')}\n${r.stdout}${r.stderr}(exit ${r.code})\n`);
  return r;
}

async function reconcile(...flags: string[]): Promise<void> {
  const r = await run(['reconcile', ...flags]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
}

function catalogue(file: string, offers: unknown[]): void {
  mkdirSync(join(dir, 'catalogue', file, '..'), { recursive: true });
  writeFileSync(join(dir, 'catalogue', file), JSON.stringify(offers));
}

const gold = (over: Record<string, unknown> = {}) => ({
  external_id: 'lol-euw-0042',
  title: 'Gold 1000',
  price: '12.00',
  stock: 5,
  ...over,
});
const account = (password: string) => ({
  external_id: 'acc-7',
  title: 'EUW Gold II',
  price: '24.99',
  credentials: { login: 'seller-acc-7', password },
});
const twin = { external_id: 'twin', title: 'Twin item', price: '1.00', stock: 1 };
const twinTopUp = { external_id: 'twin', offer_title: 'Twin top-up', price: '2.00', stock: 1, status: 'listed' };

/** As the seller would on the website: the marketplace's own PATCH, with the seller's key. */
async function editOnWebsite(id: number, body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sandbox.url}/api/v1/items/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  dir = mkdtempSync(join(tmpdir(), 'offersync-history-'));
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Six runs of the CLI, then the history read six ways: minutes on a machine busy with the whole suite.
describe('offersync history', { timeout: 480_000 }, () => {
  it("tells an offer's story in order, as text and JSON, without credentials, past pruned runs", async () => {
    catalogue('items/gold.json', [gold(), twin]);
    catalogue('accounts/acc.json', [account(PASSWORD_1)]);
    catalogue('top-ups/twin.json', [twinTopUp]);
    await reconcile();
    catalogue('items/gold.json', [gold({ price: '10.00' }), twin]);
    await reconcile();
    const id = sandbox.dump().items.find((i) => i.external_id === 'lol-euw-0042')!.id as number;
    await editOnWebsite(id, { title: 'Cheap gold' });
    await reconcile();
    expect(sandbox.dump().items.find((i) => i.id === id)).toMatchObject({ title: 'Gold 1000' });
    sandbox.sell('items', id, 1);
    await reconcile();
    catalogue('accounts/acc.json', [account(PASSWORD_2)]);
    await reconcile();
    catalogue('items/gold.json', [twin]);
    await reconcile('--allow-mass-archive');
    // Six runs: the state db keeps only the last two of them, and the story stays whole.
    const store = await openStateStore(statePath());
    try {
      expect(await store.listRuns(10)).toHaveLength(2);
    } finally {
      await store.close();
    }

    const text = await seen('item', ['history', 'lol-euw-0042']);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('item lol-euw-0042 (Gold 1000): 6 events, oldest first');
    const stamp = String.raw`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z  run \d{8}T\d{6}-[0-9a-f]{6}  `;
    const expected = [
      `created: price 12.00, stock 5, title "Gold 1000", status "listed"`,
      '    POST /api/v1/items: accepted',
      'updated price 12.00 -> 10.00 (changed in the catalogue)',
      '    PATCH /api/v1/items/:id: accepted',
      'edited on the website: title "Gold 1000" -> "Cheap gold"',
      'patched back title "Cheap gold" -> "Gold 1000"',
      '    PATCH /api/v1/items/:id: accepted',
      'sold 1 unit',
      'archived (removed from the catalogue)',
      '    PATCH /api/v1/items/:id: accepted',
    ];
    expect(lines.slice(1)).toHaveLength(expected.length);
    for (const [i, want] of expected.entries()) {
      const line = lines[i + 1]!;
      if (want.startsWith('    ')) expect(line).toBe(want);
      else expect(line).toMatch(new RegExp(`^${stamp}${want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    }

    const json = await seen('item-json', ['history', 'lol-euw-0042', '--json']);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as {
      kind: string;
      external_id: string;
      title: string;
      kept_per_offer: number;
      events: { event: string; run_id: string; at: string; route: string | null; changes: unknown[] }[];
    };
    expect(doc).toMatchObject({ kind: 'item', external_id: 'lol-euw-0042', title: 'Gold 1000' });
    expect(doc.kept_per_offer).toBe(OFFER_EVENTS_KEPT);
    expect(doc.events.map((e) => e.event)).toEqual([
      'created',
      'updated',
      'edited-on-website',
      'updated',
      'sold',
      'archived',
    ]);
    expect(doc.events[1]).toMatchObject({
      route: 'PATCH /api/v1/items/:id',
      changes: [{ field: 'price', from: 1200, to: 1000, why: 'changed' }],
      answer: { outcome: 'ok', status: null, message: null },
      detail: 'changed in the catalogue',
    });
    expect(doc.events[3]).toMatchObject({
      changes: [{ field: 'title', from: 'Cheap gold', to: 'Gold 1000', why: 'drift' }],
    });
    expect(doc.events[4]).toMatchObject({ event: 'sold', quantity: 1, route: null, answer: null });
    // Oldest first, each in the run that saw it: six events over five runs, two of them pruned from runs.
    const times = doc.events.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(new Set(doc.events.map((e) => e.run_id)).size).toBe(5);

    // The account: its password changed, and no value of it is shown, in JSON or text, or kept in the state db.
    const acc = await seen('account', ['history', 'acc-7']);
    expect(acc.code).toBe(0);
    expect(acc.stdout).toMatch(/created: .*credentials \(changed\)/);
    expect(acc.stdout).toMatch(/updated credentials \(changed\) \(changed in the catalogue\)/);
    const accJson = await run(['history', 'acc-7', '--json']);
    expect(JSON.parse(accJson.stdout).events[1].changes).toEqual([{ field: 'credentials', changed: true }]);
    const db = [statePath(), `${statePath()}-wal`].map((f) =>
      existsSync(f) ? readFileSync(f).toString('latin1') : '',
    );
    for (const out of [acc.stdout, accJson.stdout, ...db]) {
      for (const secret of [PASSWORD_1, PASSWORD_2, 'seller-acc-7']) expect(out).not.toContain(secret);
    }

    // One external_id of two kinds: asked which; an unknown one said plainly.
    const twice = await seen('ambiguous', ['history', 'twin']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(
      "'twin' is an external_id of several kinds (item, topup): say which with --kind item|topup",
    );
    const topUp = await run(['history', 'twin', '--kind', 'topup']);
    expect(topUp.code).toBe(0);
    expect(topUp.stdout).toMatch(/^topup twin \(Twin top-up\): 1 event, oldest first\n.*created: /);
    const unknown = await seen('unknown', ['history', 'lol-euw-9999']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`offersync history: no offer 'lol-euw-9999' in the state db ${statePath()}\n`);
    expect(unknown.stdout).toBe('');
  });
});
