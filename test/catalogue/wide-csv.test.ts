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
  it('100,000 columns in three rows: each unknown column warned at its own cell, the offers loaded', async () => {
    const columns = 100_000;
    const dir = tmpCatalogue({ 'items/wide.csv': wideCsv(columns, 3) });
    const s = await load(dir);
    expect(errors(s)).toEqual([]);
    expect(s.offers.map((o) => o.externalId)).toEqual(['wide-1', 'wide-2', 'wide-3']);
    const warned = warnings(s);
    expect(warned).toHaveLength((columns - 4) * 3);
    // Cells 'v,' are two characters wide after the four known ones ('wide-3,Wide 3,1999,skin,').
    const last = warned[warned.length - 1]!;
    expect([last.line, last.column, last.field, last.externalId]).toEqual([
      4,
      24 + 2 * (columns - 5) + 1,
      'c99999',
      'wide-3',
    ]);
    expect(last.message).toMatch(/^unknown field 'c99999'/);
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
