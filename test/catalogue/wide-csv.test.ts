// CSV files far wider or longer than a seller writes: every problem still lands on its own cell, and reading one
// file lets the event loop run (the daemon answers health checks meanwhile). Their times are in
// test/bench/catalogue.bench.ts, never asserted here.
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFs, type CatalogueFs } from '../../src/catalogue/read-file.ts';
import { cleanup, errors, load, tmpCatalogue, warnings } from './support/tmp-catalogue.ts';

afterEach(cleanup);

/** A header of `columns` columns (four known, the rest unknown), then `rows` rows filling each. */
function wideCsv(columns: number, rows: number): string {
  const header = ['external_id', 'title', 'price', 'type'];
  for (let c = header.length; c < columns; c++) header.push(`c${c}`);
  const lines = [header.join(',')];
  for (let r = 1; r <= rows; r++) {
    const cells = [`wide-${r}`, `Wide ${r}`, '1999', 'skin'];
    for (let c = cells.length; c < columns; c++) cells.push('v');
    lines.push(cells.join(','));
  }
  return `${lines.join('\n')}\n`;
}

describe('wide and long CSV files', () => {
  it('100,000 columns in three rows: each unknown column said once at its header cell; offers loaded', async () => {
    const columns = 100_000;
    const text = wideCsv(columns, 3);
    const dir = tmpCatalogue({ 'items/wide.csv': text });
    const s = await load(dir);
    expect(errors(s)).toEqual([]);
    expect(s.offers.map((o) => o.externalId)).toEqual(['wide-1', 'wide-2', 'wide-3']);
    const said = warnings(s);
    expect(said).toHaveLength(columns - 4);
    const last = said[said.length - 1]!;
    expect([last.line, last.column, last.field, last.externalId]).toEqual([
      1,
      text.indexOf(',c99999') + 2,
      'c99999',
      undefined,
    ]);
    expect(last.message).toMatch(/^column 'c99999' names no field of item offers; its cells are not read/);
  });

  it('a file of many rows yields to the event loop while it is read', async () => {
    const dir = tmpCatalogue({ 'items/long.csv': wideCsv(5, 5000) });
    let turns = 0;
    let turnsAtRead: number | undefined;
    let ticking = true;
    const tick = (): void => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    // The file is read just before it is parsed: turns counted from then on are turns taken during the parse.
    const fs: CatalogueFs = {
      ...nodeFs,
      readFileSync: (path) => {
        turnsAtRead = turns;
        return nodeFs.readFileSync(path);
      },
    };
    setImmediate(tick);
    const s = await load(dir, { fs });
    ticking = false;
    expect(s.offers).toHaveLength(5000);
    expect(turns - turnsAtRead!).toBeGreaterThanOrEqual(4);
  });
});
