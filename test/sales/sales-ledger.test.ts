// Where a seller's sales are kept and read back: sold.jsonl (and its rotated sold.jsonl.1) beside a sqlite state
// db, or the state db's sales table. Both read back the same lines: since a time, oldest first; the latest, newest
// first; and how many.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/open-state-store.ts';
import type { KyselyStateStore } from '../../src/state/kysely-state-store.ts';
import { fileSalesLedger, type SalesLedger, salesLedger, seenAtMs } from '../../src/sales/sales-ledger.ts';
import { appendSold, type SoldEntry } from '../../src/sales/sold-log.ts';

let dir: string;
let statePath: string;
let store: KyselyStateStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'offersync-sales-'));
  statePath = join(dir, 'state.db');
  store = await openStateStore(':memory:');
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.parse('2026-11-25T05:00:00.000Z');
/** Sale n, seen n minutes after T0. */
const sale = (n: number, over: Partial<SoldEntry> = {}): SoldEntry => ({
  kind: 'item',
  external_id: `gold-${n}`,
  id: 100 + n,
  status: 'sold',
  sale_key: `item:${100 + n}:count:${n}`,
  title: `Gold ${n}`,
  price: 2499,
  currency: null,
  sold_at: new Date(T0 + n * 60_000).toISOString(),
  sold_at_source: 'seen',
  seen_at: new Date(T0 + n * 60_000).toISOString(),
  quantity: 1,
  sold_count: n,
  ...over,
});
const ids = (entries: readonly SoldEntry[]) => entries.map((e) => e.external_id);

const ledgers: readonly [string, () => SalesLedger][] = [
  ['sold.jsonl', () => salesLedger(false, statePath, store)],
  ['the state db', () => salesLedger(true, statePath, store)],
];

describe.each(ledgers)('sales in %s', (where, open) => {
  it('says where they are', () => {
    expect(open().where).toBe(where === 'sold.jsonl' ? join(dir, 'sold.jsonl') : 'the state db');
  });

  it('reads back since a time (oldest first), the latest (newest first) and how many', async () => {
    const ledger = open();
    await ledger.record([sale(1), sale(2)]);
    await ledger.record([]);
    await ledger.record([sale(3), sale(4)]);
    expect(await ledger.since(T0 + 2 * 60_000)).toEqual([sale(2), sale(3), sale(4)]);
    expect(ids(await ledger.since(0))).toEqual(['gold-1', 'gold-2', 'gold-3', 'gold-4']);
    expect(await ledger.since(T0 + 5 * 60_000)).toEqual([]);
    expect(ids(await ledger.latest(2))).toEqual(['gold-4', 'gold-3']);
    expect(ids(await ledger.latest(10))).toEqual(['gold-4', 'gold-3', 'gold-2', 'gold-1']);
    expect(await ledger.countSince(T0 + 3 * 60_000)).toBe(2);
    expect(await ledger.countSince(0)).toBe(4);
  });

  it('has none before the first sale', async () => {
    const ledger = open();
    expect(await ledger.since(0)).toEqual([]);
    expect(await ledger.latest(5)).toEqual([]);
    expect(await ledger.countSince(0)).toBe(0);
  });
});

describe('sales in the state db', () => {
  it('keeps them under the seller and time of the sale, and a sale told twice once', async () => {
    const ledger = salesLedger(true, statePath, store);
    await ledger.record([sale(1), sale(2)]);
    await ledger.record([sale(2)]);
    expect(await store.listSales(0)).toEqual([
      { kind: 'item', externalId: 'gold-1', seenAt: T0 + 60_000, key: 'item:101:count:1', entry: sale(1) },
      { kind: 'item', externalId: 'gold-2', seenAt: T0 + 120_000, key: 'item:102:count:2', entry: sale(2) },
    ]);
    // Nothing went to a file.
    expect(await fileSalesLedger(statePath).countSince(0)).toBe(0);
  });
});

describe('sales in sold.jsonl', () => {
  it('reads the rotated file first, so that a sale stays readable until a second rotation', async () => {
    appendSold(statePath, [sale(1), sale(2)], 1);
    appendSold(statePath, [sale(3)], 1);
    expect(readFileSync(join(dir, 'sold.jsonl.1'), 'utf8')).toContain('gold-2');
    const ledger = fileSalesLedger(statePath);
    expect(ids(await ledger.since(0))).toEqual(['gold-1', 'gold-2', 'gold-3']);
    expect(await ledger.countSince(T0 + 2 * 60_000)).toBe(2);
    // The latest come from the current file only.
    expect(ids(await ledger.latest(5))).toEqual(['gold-3']);
  });

  it('skips blank, torn and foreign lines', async () => {
    const file = join(dir, 'sold.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify(sale(1)),
        '',
        '   ',
        '{"kind":"item","external_id":"gold-',
        JSON.stringify({ kind: 'item', id: 7 }),
        JSON.stringify({ kind: 3, external_id: 'x' }),
        JSON.stringify(sale(2)),
      ].join('\n'),
    );
    const ledger = fileSalesLedger(statePath);
    expect(ids(await ledger.since(0))).toEqual(['gold-1', 'gold-2']);
    expect(ids(await ledger.latest(5))).toEqual(['gold-2', 'gold-1']);
  });

  it('reads the latest from the tail of a large file, whole lines only', async () => {
    const many = Array.from({ length: 600 }, (_, i) => sale(i + 1));
    appendSold(statePath, many);
    const size = readFileSync(join(dir, 'sold.jsonl')).length;
    expect(size).toBeGreaterThan(2 * 64 * 1024);
    const ledger = fileSalesLedger(statePath);
    expect(ids(await ledger.latest(3))).toEqual(['gold-600', 'gold-599', 'gold-598']);
    const tail = await ledger.latest(1000);
    // 64 KiB of lines, not the whole file, each of them whole and in order.
    expect(tail.length).toBeGreaterThan(100);
    expect(tail.length).toBeLessThan(600);
    expect(tail).toEqual(many.slice(-tail.length).reverse());
    expect(await ledger.countSince(0)).toBe(600);
  });

  it('keeps the first line of the tail when the cut falls on a line start', async () => {
    // 300 lines of 512 bytes each: the last 64 KiB are exactly the last 128 of them.
    const padded = (n: number): SoldEntry => {
      const e = sale(n);
      const pad = 512 - 1 - JSON.stringify({ ...e, title: '' }).length;
      return { ...e, title: 'x'.repeat(pad) };
    };
    const many = Array.from({ length: 300 }, (_, i) => padded(i + 100));
    appendSold(statePath, many);
    expect(readFileSync(join(dir, 'sold.jsonl')).length).toBe(300 * 512);
    const tail = await fileSalesLedger(statePath).latest(1000);
    expect(tail).toHaveLength(128);
    expect(tail.at(-1)?.external_id).toBe('gold-272');
  });

  it('closes the file it reads the tail of: a status page asks every few seconds for months', async () => {
    appendSold(statePath, [sale(1)]);
    const ledger = fileSalesLedger(statePath);
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 20; i++) await ledger.latest(5);
    expect(open()).toBe(before);
  });

  it('a state db in memory keeps no sales file', async () => {
    const ledger = fileSalesLedger(':memory:');
    expect(ledger.where).toBe('nowhere (the state db is in memory)');
    await ledger.record([sale(1)]);
    expect(await ledger.since(0)).toEqual([]);
    expect(await ledger.latest(5)).toEqual([]);
    expect(await ledger.countSince(0)).toBe(0);
  });
});

describe('the time a sale was seen', () => {
  it('is its seen_at as epoch ms; an unreadable one is the epoch, so it is never lost from "since 0"', () => {
    expect(seenAtMs({ seen_at: '2026-11-25T05:00:00.000Z' })).toBe(T0);
    expect(seenAtMs({ seen_at: 'yesterday' })).toBe(0);
  });
});
