// What the mass-archive guard held back, said once: the first ten offers by name and how many more, and every one of
// them in guard-<run id>.txt beside a file state db (none for an in-memory or PostgreSQL state, nor when the file
// cannot be written).
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { guardHeldMessage, guardListPath, priceGuardHeldMessage } from '../../src/sync/plan/guard-list.ts';
import type { GuardVerdict } from '../../src/sync/plan/plan-actions.ts';
import type { PriceChange, PriceGuardVerdict } from '../../src/sync/plan/price-guard.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const held = (n: number) => Array.from({ length: n }, (_, i) => ({ kind: 'item' as const, externalId: `it-${i}` }));
const tripped = (n: number): GuardVerdict => ({ tripped: true, archives: n, limit: 5, held: held(n) });

describe('guard list', () => {
  it('puts the list beside a file state db only', () => {
    expect(guardListPath('/var/lib/offersync/state.db', 'r1')).toBe('/var/lib/offersync/guard-r1.txt');
    expect(guardListPath(':memory:', 'r1')).toBeNull();
    expect(guardListPath('postgres://db/offersync', 'r1')).toBeNull();
  });

  it('says nothing when the guard did not trip or held nothing back', () => {
    expect(guardHeldMessage({ tripped: false, archives: 3, limit: 5, held: held(3) }, ':memory:', 'r')).toBeUndefined();
    expect(guardHeldMessage({ tripped: true, archives: 9, limit: 5 }, ':memory:', 'r')).toBeUndefined();
    expect(guardHeldMessage({ tripped: true, archives: 9, limit: 5, held: [] }, ':memory:', 'r')).toBeUndefined();
  });

  it('names up to ten, and how many more, with no file for an in-memory state', () => {
    expect(guardHeldMessage(tripped(2), ':memory:', 'r')).toBe(
      'held back by the guard (not archived): item it-0, item it-1',
    );
    expect(guardHeldMessage(tripped(10), ':memory:', 'r')).toBe(
      `held back by the guard (not archived): ${held(10)
        .map((o) => `item ${o.externalId}`)
        .join(', ')}`,
    );
    expect(guardHeldMessage(tripped(11), ':memory:', 'r')).toMatch(/item it-9 and 1 more$/);
  });

  it('lists every one in a 0600 file beside the state db', () => {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-guard-'));
    dirs.push(dir);
    const msg = guardHeldMessage(tripped(3), join(dir, 'state.db'), 'run-7');
    const path = join(dir, 'guard-run-7.txt');
    expect(msg).toBe(
      `held back by the guard (not archived): item it-0, item it-1, item it-2; all 3 are listed in ${path}`,
    );
    expect(readFileSync(path, 'utf8')).toBe('item it-0\nitem it-1\nitem it-2\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('still names them when the file cannot be written', () => {
    expect(guardHeldMessage(tripped(1), '/nonexistent-offersync-dir/state.db', 'r')).toBe(
      'held back by the guard (not archived): item it-0',
    );
  });
});

// The price guard's: price-guard-<run id>.txt, one "kind external_id old -> new" a line, prices in major units.
const suspect = (n: number): PriceChange[] =>
  Array.from({ length: n }, (_, i) => ({ kind: 'item', externalId: `it-${i}`, from: 2000 + i, to: 20 + i }));
const priceTripped = (n: number): PriceGuardVerdict => ({
  tripped: true,
  priced: 20,
  suspect: suspect(n),
  limit: 2,
  rule: 'share',
  message: 'price guard: ...',
});

describe('price guard list', () => {
  it('says nothing when the guard did not trip or found nothing suspect', () => {
    expect(priceGuardHeldMessage({ ...priceTripped(3), tripped: false }, ':memory:', 'r')).toBeUndefined();
    expect(priceGuardHeldMessage(priceTripped(0), ':memory:', 'r')).toBeUndefined();
  });

  it('names up to ten with their prices, and how many more, with no file for an in-memory state', () => {
    expect(priceGuardHeldMessage(priceTripped(2), ':memory:', 'r')).toBe(
      'held back by the price guard (not sent): item it-0 20.00 -> 0.20, item it-1 20.01 -> 0.21',
    );
    const ten = priceGuardHeldMessage(priceTripped(10), ':memory:', 'r');
    expect(ten).toMatch(/item it-9 20\.09 -> 0\.29$/);
    expect(priceGuardHeldMessage(priceTripped(12), ':memory:', 'r')).toMatch(/item it-9 20\.09 -> 0\.29 and 2 more$/);
  });

  it('lists every one in a 0600 file beside the state db', () => {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-guard-'));
    dirs.push(dir);
    const msg = priceGuardHeldMessage(priceTripped(11), join(dir, 'state.db'), 'run-7');
    const path = join(dir, 'price-guard-run-7.txt');
    expect(msg).toMatch(new RegExp(`it-9 20\\.09 -> 0\\.29 and 1 more; all 11 are listed in ${path}$`));
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines).toHaveLength(12);
    expect(lines[0]).toBe('item it-0 20.00 -> 0.20');
    expect(lines[10]).toBe('item it-10 20.10 -> 0.30');
    expect(lines[11]).toBe('');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('still names them when the file cannot be written, and writes none for a state db on a server', () => {
    expect(priceGuardHeldMessage(priceTripped(1), '/nonexistent-offersync-dir/state.db', 'r')).toBe(
      'held back by the price guard (not sent): item it-0 20.00 -> 0.20',
    );
    expect(priceGuardHeldMessage(priceTripped(1), 'postgres://db/offersync', 'r')).toBe(
      'held back by the price guard (not sent): item it-0 20.00 -> 0.20',
    );
  });
});
