// A seller's .xlsx catalogue, as LibreOffice wrote it, through the real client against the sandbox on 127.0.0.1:
// reconciled with its prices right, and `validate` placing each problem at its cell.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/captured-io.ts';
import { createHarness, type Harness, TEST_KEY } from '../support/harness.ts';

const WORKBOOKS = fileURLToPath(new URL('../fixtures/catalogue/workbooks/', import.meta.url));
const book = (name: string): Buffer => readFileSync(join(WORKBOOKS, name));

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h?.close());

const cli = (args: readonly string[]) =>
  runMain(args, {
    cwd: h.dir,
    env: { PATH: process.env.PATH, OFFERSYNC_BASE_URL: h.sandbox.url, OFFERSYNC_API_KEY: TEST_KEY },
  });

describe('an .xlsx catalogue written by LibreOffice', { timeout: 120_000 }, () => {
  it('is reconciled against the sandbox with its prices right, and a second run sends nothing', async () => {
    h.write('items/stock.xlsx', book('items-typed.xlsx'));
    h.write('accounts/stock.xlsx', book('accounts-nested.xlsx'));
    const first = await h.reconcile();
    // Its price column mixes 1500 with 24.99 and states no unit: 1500 could be cents or euros, so that offer waits.
    expect(first.report.outcome).toBe('partial');
    expect(first.report.outcomes.find((o) => o.externalId === '1002')?.outcome).toBe('invalid');
    const market = h.sandbox.dump();
    const items = Object.fromEntries(market.items.map((i) => [i.external_id, i]));
    expect(items).toEqual({
      'x-1': expect.objectContaining({ title: 'Gold 1000', price: 2499, stock: 5, server: '007' }),
      'x-3': expect.objectContaining({ title: 'Silver', price: 1990, stock: 10 }),
    });
    const accounts = Object.fromEntries(market.accounts.map((a) => [a.external_id, a]));
    expect(accounts['acc-1']).toMatchObject({ price: 4990 });
    expect(accounts['acc-2']).toMatchObject({ price: 1999 });
    h.sandbox.resetCounters();
    expect((await h.reconcile()).report.outcome).toBe('partial');
    expect(h.writes()).toBe(0);
  });

  it('validate prints each problem at file:Sheet!cell, and --format gcc as file:row:column for editors', async () => {
    const dir = join(h.dir, 'bad');
    mkdirSync(join(dir, 'items'), { recursive: true });
    writeFileSync(join(dir, 'items', 'stock.xlsx'), book('items-errors.xlsx'));
    const text = await cli(['validate', dir]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      "warning items/stock.xlsx:Items!E1  Colour: column 'Colour' names no field of item offers; its cells are not " +
        "read (rename the header; if it is your own, start its header with # ('#Colour') or list it in " +
        'catalogue.ignoreColumns)',
    );
    expect(text.stdout).toContain(
      'error   items/stock.xlsx:Items!C3  [e-2] price: the cell shows the spreadsheet error #DIV/0!: correct its ' +
        'formula or type the value',
    );
    expect(text.stdout).toContain('error   items/stock.xlsx:Items!D4  [e-3] stock: expected a whole number');
    const gcc = await cli(['validate', dir, '--format', 'gcc']);
    expect(gcc.stdout.split('\n').filter((l) => l !== '')).toEqual([
      expect.stringMatching(/^bad\/items\/stock\.xlsx:1:5: warning: Items!E1: Colour: column 'Colour' names no field/),
      expect.stringMatching(/^bad\/items\/stock\.xlsx:3:3: error: Items!C3: \[e-2\] price: the cell shows/),
      expect.stringMatching(/^bad\/items\/stock\.xlsx:4:4: error: Items!D4: \[e-3\] stock: expected a whole/),
    ]);
  });
});
