// A file that disappears while the run reads it (an editor saving by delete-and-write) is named in the run's
// report, and its offers are left as they are: never archived, never reported as in sync.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import type { CatalogueFs } from '../../src/catalogue/read-file.ts';
import { nodeFs } from '../../src/catalogue/read-file.ts';
import { openServices } from '../../src/cli/services.ts';
import { formatReport } from '../../src/cli/format-report.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { reconcile } from '../../src/sync/reconciler.ts';
import { harnessPerTest } from '../support/harness.ts';

const openHarness = harnessPerTest();

const item = (id: string) => `${JSON.stringify({ external_id: id, title: `Item ${id}`, price: 150, stock: 2 })}\n`;

/** node's fs, except that `gone` is listed but has vanished when it is read. */
function vanishing(gone: string): CatalogueFs {
  return {
    ...nodeFs,
    readFileSync(path: string) {
      if (path.endsWith(gone)) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      return readFileSync(path);
    },
  };
}

describe('a catalogue file that vanishes mid-read', () => {
  it('is named in the report; its offers stay listed', async () => {
    const h = await openHarness();
    h.write('items/keep.ndjson', item('K-1'));
    h.write('items/saving.ndjson', item('S-1') + item('S-2'));
    await h.reconcile();
    h.sandbox.resetCounters();

    const services = await openServices(h.config, { logger: silentLogger });
    try {
      const catalogue = new Catalogue({
        dir: h.catalogueDir,
        credentialsKey: 'k',
        fs: vanishing('saving.ndjson'),
      });
      const { report } = await reconcile(
        { ...services.reconcileDeps, loadCatalogue: () => catalogue.load() },
        { command: 'test', dryRun: false },
      );
      const text = formatReport(report);
      expect(text).toContain('items/saving.ndjson');
      expect(text).toContain('disappeared while being read');
      expect(text).not.toMatch(/^Converged/m);
    } finally {
      await services.close();
    }
    expect(h.writes()).toBe(0);
    const live = h.sandbox.dump().items.filter((o) => o.status !== 'archived');
    expect(live.map((o) => o.external_id).sort()).toEqual(['K-1', 'S-1', 'S-2']);
  });
});
