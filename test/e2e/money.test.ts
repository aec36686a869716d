// What a seller's money depends on, through the CLI's main (in this process: what is tested is what it prints and
// sends, not the process) against `offersync sandbox` on 127.0.0.1: sales of units
// reported with their quantity and never put back on sale, a catalogue stock sent as written, the price guard, and
// the mass-archive guard of a small shop. What the CLI printed is kept in test/output/money/ for people to read.
import type { SoldEntry } from '../../src/sales/sold-log.ts';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mainCaptured } from '../support/captured-io.ts';
import { type CliRun, cliEnv } from '../support/cli.ts';
import { type SandboxProcess, startSandboxProcess } from '../support/sandbox-process.ts';

const KEY = 'money-e2e-key-7777';
const OUTPUT = fileURLToPath(new URL('../output/money', import.meta.url));

let sandbox: SandboxProcess;
let baseUrl = '';
let dir = '';

async function run(args: string[]): Promise<CliRun> {
  const r = await mainCaptured(args, { cwd: dir, env: cliEnv({ dir, baseUrl, apiKey: KEY, logLevel: 'warn' }) });
  return { code: r.code, stdout: r.out, stderr: r.err };
}

/** Runs the CLI and keeps what the seller saw, under the case's name. */
async function seen(name: string, args: string[]): Promise<CliRun> {
  const r = await run(args);
  mkdirSync(OUTPUT, { recursive: true });
  writeFileSync(join(OUTPUT, `${name}.txt`), `$ offersync ${args.join(' ')}\n${r.stdout}(exit ${r.code})\n`);
  return r;
}

async function control(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}/__sandbox/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const writes = async () => (await control('counters')).writes as number;
const items = async () => ((await control('dump')) as { items: Record<string, unknown>[] }).items;
const item = async (externalId: string) => (await items()).find((i) => i.external_id === externalId)!;

function catalogue(file: string, text: string): void {
  mkdirSync(join(dir, 'catalogue', file, '..'), { recursive: true });
  writeFileSync(join(dir, 'catalogue', file), text);
}

const stockJson = (stock: number) =>
  JSON.stringify([
    { external_id: 'gold-1', title: 'Gold 1000', price: 2499, stock },
    { external_id: 'gold-2', title: 'Gold 5000', price: 9999, stock: 2 },
  ]);

beforeAll(async () => {
  sandbox = await startSandboxProcess(KEY);
  baseUrl = sandbox.url;
});

beforeEach(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = mkdtempSync(join(tmpdir(), 'offersync-money-'));
  await control('reset', {});
});

afterAll(() => {
  sandbox?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Each case runs the CLI four to six times: on a busy machine that may be more than vitest's default 30 s.
describe('money', { timeout: 120_000 }, () => {
  it('a sale of 2 units of an item is reported with its quantity and its stock is not put back', async () => {
    catalogue('items/stock.json', stockJson(5));
    expect((await run(['reconcile'])).code).toBe(0);
    expect(await control('sell', { kind: 'items', identifier: 'gold-1', quantity: 2 })).toMatchObject({
      sold_count: 2,
      stock: 3,
    });
    await control('reset-counters', {});

    const r = await seen('sale-reconcile', ['reconcile']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Sold since the last run: 2 unit(s) of 1 offer(s) (see sold.jsonl):');
    expect(r.stdout).toContain('item gold-1 (Gold 1000): 2 units sold');
    expect(r.stdout).toContain('Converged');
    expect(await writes()).toBe(0);
    const gold = await item('gold-1');
    expect(gold).toMatchObject({ stock: 3, sold_count: 2 });
    const lines = readFileSync(join(dir, 'state', 'sold.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        kind: 'item',
        external_id: 'gold-1',
        title: 'Gold 1000',
        quantity: 2,
        // The marketplace's id: the two items are created side by side, in either order.
        id: gold.id,
        sale_key: `item:${gold.id}:count:2`,
        sold_count: 2,
        sold_at_source: 'seen',
      }),
    ]);
    // The API gives no time of a unit sale: sold_at is when offersync saw it, and says so.
    const line = JSON.parse(lines[0]!) as SoldEntry;
    expect(line.seen_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(line.sold_at).toBe(line.seen_at);
    expect(line.price).toBe(2499);

    // Told once: the next run sees no new sale and still sends nothing.
    const again = await run(['reconcile']);
    expect(again.stdout).not.toContain('Sold since the last run');
    expect(await writes()).toBe(0);
    const status = await seen('sale-status', ['status']);
    expect(status.stdout).toMatch(/item gold-1 \(Gold 1000\) sold 2 unit\(s\)/);

    // A marketplace that keeps stock apart from sales: the count alone rises, nothing is sent either.
    await control('sell', { kind: 'items', identifier: 'gold-2', quantity: 1, keepStock: true });
    const kept = await run(['reconcile']);
    expect(kept.stdout).toContain('item gold-2 (Gold 5000): 1 unit sold');
    expect(await writes()).toBe(0);
    expect(await item('gold-2')).toMatchObject({ stock: 2, sold_count: 1 });
  });

  it('a lost state db: offers are adopted, and the units they sold meanwhile are not put back on sale', async () => {
    catalogue('items/stock.json', stockJson(5));
    expect((await run(['reconcile'])).code).toBe(0);
    await control('sell', { kind: 'items', identifier: 'gold-1', quantity: 2 });
    rmSync(join(dir, 'state'), { recursive: true, force: true });
    await control('reset-counters', {});
    const r = await run(['reconcile']);
    expect(r.code).toBe(0);
    expect(await writes()).toBe(0);
    await control('sell', { kind: 'items', identifier: 'gold-1', quantity: 1 });
    const next = await run(['reconcile']);
    expect(next.stdout).toContain('item gold-1 (Gold 1000): 1 unit sold');
    expect(await writes()).toBe(0);
    expect(await item('gold-1')).toMatchObject({ stock: 2, sold_count: 3 });
  });

  it('a top-up sells units too, and a stock edited on the website with no sale behind it is drift', async () => {
    catalogue(
      'top-ups/gems.json',
      JSON.stringify([
        {
          external_id: 'tu-gems',
          offer_title: '100 gems',
          price: 199,
          stock: 50,
          offer_amount: 100,
          offer_unit: 'gems',
        },
      ]),
    );
    expect((await run(['reconcile'])).code).toBe(0);
    await control('sell', { kind: 'top-ups', identifier: 'tu-gems', quantity: 7 });
    await control('reset-counters', {});
    const r = await run(['reconcile']);
    expect(r.stdout).toContain('topup tu-gems (100 gems): 7 units sold');
    expect(await writes()).toBe(0);
    // The seller lowers it on the website: no sale explains it, so the catalogue's 50 is patched back.
    const gems = ((await control('dump')) as { topUps: Record<string, unknown>[] }).topUps[0]!;
    const res = await fetch(`${baseUrl}/api/v1/top-ups/${String(gems.id)}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ stock: 10 }),
    });
    expect(res.status).toBe(200);
    const plan = await run(['plan']);
    expect(plan.stdout).toContain('stock: 10 -> 50 (edited on the marketplace)');
    // Undone, and said so: not a plain "updated" the seller would take for a change of their own.
    const undone = await run(['reconcile']);
    expect(undone.stdout).toContain('stock: 10 -> 50  (edited on the marketplace: patched back)');
  });

  it('a catalogue stock change is sent as written; a catalogue that caught up with a sale sends nothing', async () => {
    catalogue('items/stock.json', stockJson(5));
    expect((await run(['reconcile'])).code).toBe(0);
    await control('sell', { kind: 'items', identifier: 'gold-1', quantity: 2 });
    // The seller's inventory says 10 now: that is the truth about what they hold, whatever sold meanwhile.
    catalogue('items/stock.json', stockJson(10));
    await control('reset-counters', {});
    const r = await seen('stock-change-reconcile', ['reconcile']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('item gold-1 (Gold 1000): 2 units sold');
    expect(await item('gold-1')).toMatchObject({ stock: 10, sold_count: 2 });
    expect(await writes()).toBe(1);

    // Sold 4, then the inventory script writes what is left (6): in agreement, nothing is sent, and a later sale
    // is measured from there.
    await control('sell', { kind: 'items', identifier: 'gold-1', quantity: 4 });
    catalogue('items/stock.json', stockJson(6));
    await control('reset-counters', {});
    expect((await run(['reconcile'])).code).toBe(0);
    await control('sell', { kind: 'items', identifier: 'gold-1', quantity: 1 });
    const later = await run(['reconcile']);
    expect(later.stdout).toContain('item gold-1 (Gold 1000): 1 unit sold');
    expect(await writes()).toBe(0);
    expect(await item('gold-1')).toMatchObject({ stock: 5, sold_count: 7 });
  });

  it('the price guard stops a run whose prices were divided by 100, and lets it through with the flag', async () => {
    const rows = (price: (i: number) => string) =>
      [
        'external_id,title,price,stock',
        ...Array.from({ length: 12 }, (_, i) => `sku-${String(i).padStart(2, '0')},Skin ${i},${price(i)},1`),
      ].join('\n');
    catalogue('items/skins.csv', `${rows((i) => `${20 + i}.00`)}\n`);
    expect((await run(['reconcile'])).code).toBe(0);
    // An export that wrote 20 for 20.00: read as 20 cents.
    catalogue('items/skins.csv', `${rows((i) => String(20 + i))}\n`);
    await control('reset-counters', {});

    const plan = await seen('price-guard-plan', ['plan']);
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('STOP: price guard: 12 of 12 priced offers would change price by a factor of 3');
    expect(plan.stdout).toContain('item sku-00: 20.00 -> 0.20');

    const r = await seen('price-guard-reconcile', ['reconcile']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('price guard: 12 of 12 priced offers would change price by a factor of 3 or more');
    expect(r.stdout).toMatch(/held back by the price guard \(not sent\): item sku-00 20\.00 -> 0\.20, /);
    expect(r.stdout).toContain('and 2 more; all 12 are listed in');
    expect(r.stdout).toContain('Stopped before the first write.');
    expect(await writes()).toBe(0);
    expect((await item('sku-05')).price).toBe(2500);
    const list = readdirSync(join(dir, 'state')).find((f) => f.startsWith('price-guard-'))!;
    expect(
      readFileSync(join(dir, 'state', list), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(12);
    const status = await seen('price-guard-status', ['status']);
    expect(status.stdout).toContain('The last run was stopped by a guard');

    const through = await seen('price-guard-allowed', ['reconcile', '--allow-price-change']);
    expect(through.code).toBe(0);
    expect((await item('sku-05')).price).toBe(25);
    expect((await run(['status'])).stdout).not.toContain('stopped by a guard');
  });

  it('a 30-offer shop whose export came out with its first 5 rows is stopped, naming the rule', async () => {
    const rows = (n: number) =>
      [
        'external_id,title,price,stock',
        ...Array.from({ length: n }, (_, i) => `it-${String(i).padStart(2, '0')},Item ${i},${500 + i},3`),
      ].join('\n');
    catalogue('items/shop.csv', `${rows(30)}\n`);
    expect((await run(['reconcile'])).code).toBe(0);
    catalogue('items/shop.csv', `${rows(5)}\n`);
    await control('reset-counters', {});

    const plan = await seen('small-shop-plan', ['plan']);
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('STOP: this run would archive 25 of 30 managed offers, more than half of them.');

    const r = await seen('small-shop-reconcile', ['reconcile']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('this run would archive 25 of 30 managed offers, more than half of them.');
    expect(r.stdout).toContain('Stopped before the first write.');
    expect(await writes()).toBe(0);
    expect((await items()).filter((i) => i.status === 'listed')).toHaveLength(30);

    // A file lost whole says so.
    rmSync(join(dir, 'catalogue', 'items', 'shop.csv'));
    catalogue('items/other.csv', 'external_id,title,price,stock\nnew-1,New,100,1\n');
    const lost = await seen('lost-file-reconcile', ['reconcile']);
    expect(lost.code).toBe(1);
    expect(lost.stdout).toContain('The catalogue lost whole files: every offer of items/shop.csv (30) is gone.');
    expect(existsSync(join(dir, 'state'))).toBe(true);
  });
});
