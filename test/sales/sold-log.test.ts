// sold.jsonl retention: rotated past its size cap, so a daemon running for months keeps at most
// two files of sales.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { statusSaleEntry, unitSaleEntry } from '../../src/sales/sale-entry.ts';
import {
  appendSold,
  SOLD_AT_SOURCES,
  SOLD_LOG_MAX_BYTES,
  saleKey,
  soldLogPath,
  type SoldEntry,
} from '../../src/sales/sold-log.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const entry = (i: number): SoldEntry => ({
  kind: 'account',
  external_id: `acc-${i}`,
  id: i,
  status: 'sold',
  sale_key: `account:${i}:sold:2026-01-02T03:04:05Z`,
  title: `Account ${i}`,
  price: 4990,
  currency: null,
  sold_at: '2026-01-02T03:04:05Z',
  sold_at_source: 'marketplace',
  seen_at: '2026-01-02T03:05:00Z',
});

describe('sold.jsonl', () => {
  it('appends one line per sale, 0600, and rotates to sold.jsonl.1 once past the cap', () => {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-sold-'));
    dirs.push(dir);
    const statePath = join(dir, 'state.db');
    const path = soldLogPath(statePath)!;
    const lines = (p: string) =>
      readFileSync(p, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).external_id);
    appendSold(statePath, [entry(1), entry(2)], 600);
    expect(lines(path)).toEqual(['acc-1', 'acc-2']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    appendSold(statePath, [entry(3)], 600); // still under the cap: appended
    expect(lines(path)).toEqual(['acc-1', 'acc-2', 'acc-3']);
    appendSold(statePath, [entry(4)], 600); // past it: the full file is kept as .1
    expect(lines(`${path}.1`)).toEqual(['acc-1', 'acc-2', 'acc-3']);
    expect(lines(path)).toEqual(['acc-4']);
    appendSold(statePath, [entry(5), entry(6)], 600);
    appendSold(statePath, [entry(7)], 600);
    expect(lines(`${path}.1`)).toEqual(['acc-4', 'acc-5', 'acc-6']);
    expect(lines(path)).toEqual(['acc-7']);
  });

  it('writes nothing for an in-memory state db or no sales', () => {
    expect(soldLogPath(':memory:')).toBeNull();
    expect(() => appendSold(':memory:', [entry(1)])).not.toThrow();
    const dir = mkdtempSync(join(tmpdir(), 'offersync-sold-'));
    dirs.push(dir);
    appendSold(join(dir, 'state.db'), []);
    expect(existsSync(join(dir, 'sold.jsonl'))).toBe(false);
  });

  it('rotates a file that reached the cap exactly, and by default at 8 MiB', () => {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-sold-'));
    dirs.push(dir);
    const statePath = join(dir, 'state.db');
    const path = soldLogPath(statePath)!;
    writeFileSync(path, 'x'.repeat(99));
    appendSold(statePath, [entry(1)], 100);
    expect(existsSync(`${path}.1`)).toBe(false);
    writeFileSync(path, 'x'.repeat(100));
    appendSold(statePath, [entry(2)], 100);
    expect(statSync(`${path}.1`).size).toBe(100);
    rmSync(`${path}.1`);
    writeFileSync(path, Buffer.alloc(SOLD_LOG_MAX_BYTES - 1, 0x78));
    appendSold(statePath, [entry(3)]);
    expect(existsSync(`${path}.1`)).toBe(false);
    appendSold(statePath, [entry(4)]);
    expect(statSync(`${path}.1`).size).toBeGreaterThan(8 * 1024 * 1024);
    expect(readFileSync(path, 'utf8')).toBe(`${JSON.stringify(entry(4))}\n`);
  });
});

describe('sale keys and sources', () => {
  it('one key per sale: a status with the marketplace time when it gave one, a count of units', () => {
    expect(saleKey({ kind: 'account', id: 9, status: 'sold', marketplaceSoldAt: '2026-01-02T03:04:05.000Z' })).toBe(
      'account:9:sold:2026-01-02T03:04:05.000Z',
    );
    expect(saleKey({ kind: 'account', id: 9, status: 'refunded', marketplaceSoldAt: null })).toBe('account:9:refunded');
    expect(saleKey({ kind: 'item', id: 4, soldCount: 0 })).toBe('item:4:count:0');
  });

  it('the sources of sold_at a line may name are those lines are written with (the status page keeps them)', () => {
    const seen = new Date('2026-01-02T03:05:00Z');
    const remote = { id: 9, externalId: 'acc-9', status: 'sold', fields: {} };
    const written = [
      statusSaleEntry('account', 'acc-9', { ...remote, soldAt: Date.parse('2026-01-02T03:04:05Z') }, null, seen),
      statusSaleEntry('account', 'acc-9', remote, null, seen),
      unitSaleEntry(
        {
          kind: 'item',
          externalId: 'i',
          title: null,
          price: null,
          currency: null,
          quantity: 1,
          remoteId: 4,
          soldCount: 1,
        },
        seen,
      ),
    ].map((e) => e.sold_at_source);
    expect([...new Set(written)].sort()).toEqual([...SOLD_AT_SOURCES].sort());
  });
});
