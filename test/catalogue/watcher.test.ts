// The watcher: one batch for a burst of writes, a correct added/changed/removed set, ignored files
// ignored. Waits are bounded: each waits for the batch it expects, or fails after a few seconds.
import { mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Catalogue, type FileChanges } from '../../src/catalogue/catalogue.ts';
import { isWatchIgnored, watchCatalogue, type CatalogueWatcher } from '../../src/catalogue/watcher.ts';
import { cleanup, fixture, tmpCatalogue } from './support/tmp-catalogue.ts';

let watcher: CatalogueWatcher | undefined;
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  cleanup();
});

function collector(w: CatalogueWatcher): { batches: FileChanges[]; next(timeoutMs?: number): Promise<FileChanges> } {
  const batches: FileChanges[] = [];
  const waiters: ((c: FileChanges) => void)[] = [];
  w.on('batch', (c) => {
    batches.push(c);
    waiters.shift()?.(c);
  });
  let taken = 0;
  return {
    batches,
    next(timeoutMs = 8000) {
      const i = taken++;
      if (batches[i]) return Promise.resolve(batches[i]!);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no batch within ${timeoutMs} ms`)), timeoutMs);
        waiters.push((c) => {
          clearTimeout(t);
          resolve(c);
        });
      });
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('watchCatalogue', () => {
  it('200 writes are one batch; then changed, removed, renamed and ignored files are reported right', async () => {
    const dir = tmpCatalogue({
      'items/keep.ndjson': '{}\n',
      'items/edit.ndjson': '{}\n',
      'items/gone.ndjson': '{}\n',
      'items/old-name.ndjson': '{}\n',
      'accounts/.keep': '',
    });
    watcher = watchCatalogue(dir, { debounceMs: 300, stabilityMs: 100 });
    const c = collector(watcher);
    await watcher.ready;

    for (let i = 0; i < 200; i++)
      writeFileSync(join(dir, `accounts/burst-${String(i).padStart(3, '0')}.json`), `{"external_id":"b${i}"}`);
    const first = await c.next();
    expect(first.added).toHaveLength(200);
    expect(first.added[0]).toBe('accounts/burst-000.json');
    expect(first.changed).toEqual([]);
    expect(first.removed).toEqual([]);
    await sleep(700);
    expect(c.batches).toHaveLength(1);

    writeFileSync(join(dir, 'items/edit.ndjson'), '{"changed":true}\n');
    unlinkSync(join(dir, 'items/gone.ndjson'));
    renameSync(join(dir, 'items/old-name.ndjson'), join(dir, 'items/new-name.ndjson'));
    writeFileSync(join(dir, 'items/.edit.ndjson.swp'), 'x');
    writeFileSync(join(dir, 'items/edit.ndjson~'), 'x');
    writeFileSync(join(dir, 'debug.log'), 'x');
    const second = await c.next();
    expect(second).toEqual({
      added: ['items/new-name.ndjson'],
      changed: ['items/edit.ndjson'],
      removed: ['items/gone.ndjson', 'items/old-name.ndjson'],
    });
  });

  it('a file created and deleted within one batch is not reported; images are', async () => {
    const dir = tmpCatalogue({ 'items/a.ndjson': '{}\n', 'images/.keep': '' });
    watcher = watchCatalogue(dir, { debounceMs: 250, stabilityMs: 50 });
    const c = collector(watcher);
    await watcher.ready;
    writeFileSync(join(dir, 'items/temp.ndjson'), '{}');
    await sleep(120);
    unlinkSync(join(dir, 'items/temp.ndjson'));
    writeFileSync(join(dir, 'images/p.png'), 'x');
    const b = await c.next();
    expect(b.added).toEqual(['images/p.png']);
    expect(b.removed).toEqual([]);
  });

  it('ignores what the loader ignores', () => {
    const file = { isFile: () => true, isDirectory: () => false } as import('node:fs').Stats;
    const dirStat = { isFile: () => false, isDirectory: () => true } as import('node:fs').Stats;
    expect(isWatchIgnored('', dirStat)).toBe(false);
    expect(isWatchIgnored('accounts', dirStat)).toBe(false);
    expect(isWatchIgnored('accounts/eu', dirStat)).toBe(false);
    expect(isWatchIgnored('accounts/a.json', file)).toBe(false);
    expect(isWatchIgnored('images/a.png', file)).toBe(false);
    expect(isWatchIgnored('debug.log', file)).toBe(true);
    expect(isWatchIgnored('node_modules', dirStat)).toBe(true);
    expect(isWatchIgnored('.git', dirStat)).toBe(true);
    expect(isWatchIgnored('accounts/.a.json.swp', file)).toBe(true);
    expect(isWatchIgnored('accounts/a.json~', file)).toBe(true);
    expect(isWatchIgnored('accounts/4913', file)).toBe(true);
    expect(isWatchIgnored('accounts/#a.json#', file)).toBe(true);
    expect(isWatchIgnored('accounts/notes.txt', file)).toBe(true);
    expect(isWatchIgnored('items/stock.xlsx', file)).toBe(false);
    expect(isWatchIgnored('items/stock.ods', file)).toBe(false);
    expect(isWatchIgnored('items/~$stock.xlsx', file)).toBe(true); // Excel's owner file
    expect(isWatchIgnored('items/.~lock.stock.xlsx#', file)).toBe(true); // LibreOffice's lock file
  });

  it('a workbook saved over is one change, its lock files are not; reload reads the new sheet', async () => {
    const dir = tmpCatalogue({ 'items/stock.xlsx': fixture('workbooks/items-typed.xlsx') });
    // Its price column mixes 1500 and 24.99: the unit said by the setting, so that every row is an offer.
    const catalogue = new Catalogue({ dir, credentialsKey: 'k', csv: { priceUnit: 'major' } });
    expect((await catalogue.load()).offers).toHaveLength(3);
    watcher = watchCatalogue(dir, { debounceMs: 250, stabilityMs: 50 });
    const c = collector(watcher);
    await watcher.ready;
    writeFileSync(join(dir, 'items/.~lock.stock.xlsx#'), 'lock');
    writeFileSync(join(dir, 'items/~$stock.xlsx'), 'owner');
    writeFileSync(join(dir, 'items/stock.xlsx'), fixture('workbooks/items-errors.xlsx'));
    const b = await c.next();
    expect([b.added, b.changed, b.removed]).toEqual([[], ['items/stock.xlsx'], []]);
    const r = await catalogue.reload(b);
    expect(r.snapshot.offers.map((o) => o.externalId)).toEqual(['e-1']);
    expect(r.removed.sort()).toEqual(['item:1002', 'item:x-1', 'item:x-3']);
  });

  it('a catalogue folder removed and restored: held while gone, then read afresh and watched again', async () => {
    const item = (id: string, price: number) => `{"external_id":"${id}","title":"T","price":${price}}\n`;
    const dir = tmpCatalogue({ 'items/a.ndjson': item('a', 100), 'items/b.ndjson': item('b', 100) });
    const cat = new Catalogue({ dir, credentialsKey: 'k' });
    await cat.load();
    watcher = watchCatalogue(dir, { debounceMs: 100, stabilityMs: 50, reattachMs: 100 });
    const c = collector(watcher);
    await watcher.ready;

    rmSync(dir, { recursive: true });
    await sleep(1000);
    // Gone is unknown, not empty: no batch removes its files.
    expect(c.batches).toEqual([]);
    mkdirSync(join(dir, 'items'), { recursive: true });
    writeFileSync(join(dir, 'items/a.ndjson'), item('a', 200));
    writeFileSync(join(dir, 'items/b.ndjson'), item('b', 100));
    const back = await c.next();
    expect(back.changed).toEqual(['items/a.ndjson', 'items/b.ndjson']);
    const r = await cat.reload(back);
    expect(r.changed).toEqual(['item:a']);
    expect(r.snapshot.offers.map((o) => o.externalId).sort()).toEqual(['a', 'b']);

    // Watched again: a later edit is reported.
    writeFileSync(join(dir, 'items/b.ndjson'), item('b', 300));
    const edit = await c.next();
    expect(edit.changed).toEqual(['items/b.ndjson']);
    expect((await cat.reload(edit)).changed).toEqual(['item:b']);
  });
});
