// A catalogue that lost offers by accident must never empty the shop: a file that reads empty (a save in
// progress) archives nothing, and the mass-archive guard counts per kind and per file as well as per shop, so one
// sheet cut short stops the run however large the shop.
import { describe, expect, it } from 'vitest';
import { closingLine } from '../../src/cli/format-report.ts';
import { harnessPerTest } from '../support/harness.ts';

const openHarness = harnessPerTest();

const item = (id: string) => ({ external_id: id, title: `Item ${id}`, price: 1000 });
const items = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => item(`${prefix}-${i}`));
const archivedIn = (dump: {
  items: readonly Record<string, unknown>[];
  accounts: readonly Record<string, unknown>[];
}) => [...dump.items, ...dump.accounts].filter((o) => o.status === 'archived').length;

const asFormat = {
  json: (rows: object[]) => JSON.stringify(rows),
  ndjson: (rows: object[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join(''),
  yaml: (rows: object[]) => `offers:\n${rows.map((r) => `  - ${JSON.stringify(r)}\n`).join('')}`,
  csv: (rows: object[]) => `external_id,title,price\n${rows.map((r) => Object.values(r).join(',')).join('\n')}\n`,
} as const;

describe('a file that reads empty archives nothing', () => {
  it.each(Object.keys(asFormat) as (keyof typeof asFormat)[])(
    'a 0-byte .%s file of 10 items: nothing archived, the file quarantined; its next save is synced',
    async (format) => {
      const h = await openHarness();
      const file = `items/stock.${format}`;
      h.write(file, asFormat[format](items('i', 10)));
      expect((await h.reconcile()).report.outcome).toBe('converged');
      h.write(file, '');
      const run = await h.reconcile();
      expect(run.catalogue.quarantinedFiles).toEqual([file]);
      expect(run.plan.actions.filter((a) => a.type === 'archive')).toEqual([]);
      // No all-clear: the summary says the file was not seen, not "Converged".
      const summary = closingLine(run.report);
      expect(summary).not.toMatch(/^Converged/);
      expect(summary).toMatch(/^Done for what could be read, but no all-clear/);
      expect(run.report.messages).toContain(
        `1 catalogue file quarantined (${file}): its offers are left as they are; offersync validate says why`,
      );
      expect(archivedIn(h.sandbox.dump())).toBe(0);
      // The save completes with one item fewer: that one, and only that one, is archived.
      h.write(file, asFormat[format](items('i', 9)));
      await h.reconcile();
      expect(archivedIn(h.sandbox.dump())).toBe(1);
    },
  );

  it('an explicit empty list ([] in JSON) does remove the offers of its file', async () => {
    const h = await openHarness();
    h.write('items/a.json', JSON.stringify(items('a', 2)));
    h.write('items/b.json', JSON.stringify(items('b', 8)));
    await h.reconcile();
    h.write('items/a.json', '[]');
    const run = await h.reconcile();
    expect(run.catalogue.quarantinedFiles).toEqual([]);
    expect(archivedIn(h.sandbox.dump())).toBe(2);
  });
});

describe('the mass-archive guard counts per kind and per file', () => {
  it('a kind losing all its offers stops the run, though the shop loses less than its limit', async () => {
    const h = await openHarness();
    h.write(
      'accounts/a.json',
      JSON.stringify(Array.from({ length: 10 }, (_, i) => ({ external_id: `acc-${i}`, title: 'A', price: 5000 }))),
    );
    h.write('items/b.json', JSON.stringify(items('b', 50)));
    await h.reconcile();
    h.remove('accounts/a.json');
    const stopped = await h.reconcile();
    // 10 of 60 is under the shop's limit (25): only the kind's rule stops it.
    expect(stopped.plan.guard).toMatchObject({ tripped: true, rule: 'kind', archives: 10 });
    expect(stopped.plan.guard.message).toContain('this run would archive 10 of 10 of the account offers');
    expect(archivedIn(h.sandbox.dump())).toBe(0);
    await h.reconcile({ allowMassArchive: true });
    expect(archivedIn(h.sandbox.dump())).toBe(10);
  });

  it('a file cut short (10 offers saved as 3) stops the run, though its kind and shop lose less', async () => {
    const h = await openHarness();
    h.write('items/a.json', JSON.stringify(items('a', 10)));
    h.write('items/b.json', JSON.stringify(items('b', 40)));
    await h.reconcile();
    h.write('items/a.json', JSON.stringify(items('a', 3)));
    const stopped = await h.reconcile();
    expect(stopped.plan.guard).toMatchObject({ tripped: true, rule: 'file', archives: 7 });
    expect(stopped.plan.guard.message).toContain('7 of 10 of the offers of items/a.json');
    expect(archivedIn(h.sandbox.dump())).toBe(0);
    // Half of a file or less is an edit, not a loss.
    h.write('items/a.json', JSON.stringify(items('a', 5)));
    expect((await h.reconcile()).plan.guard.tripped).toBe(false);
    expect(archivedIn(h.sandbox.dump())).toBe(5);
  });
});
