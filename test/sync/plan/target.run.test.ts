// Targeted runs (--only, --file, --match) against the sandbox: only the target is planned and written, an
// offer removed from a targeted file is archived, nothing outside the target is archived, and the summary says
// how many offers were left as they are.
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveTarget } from '../../../src/cli/target-flags.ts';
import { globRegExp } from '../../../src/sync/plan/target.ts';
import { type Harness, harnessPerTest } from '../../support/harness.ts';

const openHarness = harnessPerTest();

const item = (id: string, price: number) => ({ external_id: id, title: `Item ${id}`, price });
const written = (outcomes: readonly { outcome: string; externalId: string }[]) =>
  outcomes
    .filter((o) => o.outcome !== 'unchanged')
    .map((o) => `${o.outcome} ${o.externalId}`)
    .sort();

describe('targeted runs', () => {
  it('--file, --only and --match act on their target only and never archive outside it', async () => {
    const h = await openHarness();
    h.write('items/a.json', JSON.stringify([item('a-1', 100), item('a-2', 200)]));
    h.write('items/b.json', JSON.stringify([item('b-1', 300)]));
    h.write('accounts/x.json', JSON.stringify([{ external_id: 'acc-1', title: 'Account', price: 5000 }]));
    expect((await h.reconcile()).report.outcome).toBe('converged');

    // a-1 and b-1 change, a-2 and acc-1 leave the catalogue.
    h.write('items/a.json', JSON.stringify([item('a-1', 150)]));
    h.write('items/b.json', JSON.stringify([item('b-1', 350)]));
    h.write('accounts/x.json', '[]');

    const plan = await h.reconcile({ dryRun: true, target: { files: ['items/a.json'] } });
    expect(plan.plan.target).toMatchObject({ description: '--file items/a.json', outside: 2 });
    expect(plan.plan.actions.map((a) => `${a.type} ${'externalId' in a ? a.externalId : ''}`).sort()).toEqual([
      'archive a-2',
      'update a-1',
    ]);

    const byFile = await h.reconcile({ target: { files: ['items/a.json'] } });
    expect(written(byFile.report.outcomes)).toEqual(['archived a-2', 'updated a-1']);
    expect(byFile.report.messages[0]).toBe(
      'targeted run (--file items/a.json): 2 offers outside the target left as they are; ' +
        'nothing outside it is archived',
    );
    const dump = h.sandbox.dump();
    expect(dump.items.find((i) => i.external_id === 'b-1')?.price).toBe(300);
    expect(dump.accounts.find((a) => a.external_id === 'acc-1')?.status).not.toBe('archived');

    const byMatch = await h.reconcile({ target: { match: 'b-*' } });
    expect(written(byMatch.report.outcomes)).toEqual(['updated b-1']);
    expect(h.sandbox.dump().accounts.find((a) => a.external_id === 'acc-1')?.status).not.toBe('archived');

    // The only account goes: more than half of the kind, which the guard stops unless told.
    expect((await h.reconcile({ target: { kinds: ['account'] } })).plan.guard).toMatchObject({ rule: 'kind' });
    const byKind = await h.reconcile({ target: { kinds: ['account'] }, allowMassArchive: true });
    expect(written(byKind.report.outcomes)).toEqual(['archived acc-1']);

    // Everything is in place now: a whole run has nothing left to do.
    h.sandbox.resetCounters();
    expect((await h.reconcile()).report.outcome).toBe('converged');
    expect(h.writes()).toBe(0);
  });

  it('catalogue errors outside the target do not fail a targeted run', async () => {
    const h = await openHarness();
    h.write('items/a.json', JSON.stringify([item('a-1', 100)]));
    h.write('items/bad.json', JSON.stringify([item('z-1', -5)]));
    const all = await h.reconcile();
    expect(all.report.outcome).toBe('partial');
    const targeted = await h.reconcile({ target: { files: ['items/a.json'] } });
    expect(targeted.report.outcome).toBe('converged');
  });

  it('catalogue errors in the target fail it: an offer by its id, a broken file for --file, not --match', async () => {
    const h = await openHarness();
    h.write('items/a.json', JSON.stringify([item('a-1', 100), item('a-2', -5)]));
    h.write('items/broken.json', '[{"external_id": "b-1", "title": "B", ');
    h.write('top-ups/t.json', JSON.stringify([{ external_id: 't-1', offer_title: 'T', price: -1 }]));
    const failed = (r: Awaited<ReturnType<Harness['reconcile']>>) =>
      r.report.outcomes
        .filter((o) => o.outcome === 'invalid')
        .map((o) => `${o.kind} ${o.externalId}`)
        .sort();
    const byFile = await h.reconcile({ target: { files: ['items/a.json', 'items/broken.json'] } });
    expect(failed(byFile)).toEqual(['item (file)', 'item a-2']);
    const byMatch = await h.reconcile({ target: { match: 'a-*' } });
    expect(failed(byMatch)).toEqual(['item a-2']);
    // Even a glob matching every external_id leaves out an error that names none.
    const everyId = await h.reconcile({ target: { match: '*' } });
    expect(failed(everyId)).toEqual(['item a-2', 'topup t-1']);
    const byKind = await h.reconcile({ target: { kinds: ['topup'] } });
    expect(failed(byKind)).toEqual(['topup t-1']);
  });
});

describe('target flags', () => {
  it('globs match whole external_ids', () => {
    expect(globRegExp('gold-*').test('gold-1000')).toBe(true);
    expect(globRegExp('gold-*').test('xgold-1')).toBe(false);
    expect(globRegExp('acc-?').test('acc-7')).toBe(true);
    expect(globRegExp('acc-[12]').test('acc-3')).toBe(false);
    expect(globRegExp('a.b').test('axb')).toBe(false);
  });

  it('--file is a catalogue file, from the working directory or from the catalogue; --only names kinds', () => {
    const dir = join(process.cwd(), 'test', 'output', 'target-catalogue');
    mkdirSync(join(dir, 'items'), { recursive: true });
    writeFileSync(join(dir, 'items', 'a.json'), '[]');
    expect(resolveTarget({ file: ['items/a.json'] }, dir, '/')).toEqual({ files: ['items/a.json'] });
    expect(resolveTarget({ file: [join(dir, 'items/a.json')] }, dir, '/')).toEqual({ files: ['items/a.json'] });
    expect(resolveTarget({ file: ['a.json'] }, dir, join(dir, 'items'))).toEqual({ files: ['items/a.json'] });
    expect(() => resolveTarget({ file: ['/etc/passwd'] }, dir, '/')).toThrow(/not a file of the catalogue/);
    expect(resolveTarget({ only: 'item,topup' }, dir, '/')).toEqual({ kinds: ['item', 'topup'] });
    // As the folders are named, or singular, in any case.
    expect(resolveTarget({ only: 'Items,top-ups,account' }, dir, '/')).toEqual({ kinds: ['item', 'topup', 'account'] });
    expect(() => resolveTarget({ only: 'itmes' }, dir, '/')).toThrow(
      /--only takes accounts, items, top-ups .*got 'itmes'; did you mean 'items'\?/,
    );
    expect(() => resolveTarget({ match: 'x[z-a]' }, dir, '/')).toThrow(
      expect.objectContaining({
        name: 'UsageError',
        message: expect.stringMatching(/^--match 'x\[z-a\]' is not a glob/),
      }),
    );
    expect(resolveTarget({ match: 'gold-[a-c]*' }, dir, '/')).toEqual({ match: 'gold-[a-c]*' });
  });
});
