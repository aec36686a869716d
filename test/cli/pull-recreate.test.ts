// A pulled catalogue is the shop: reconciled onto an empty seller it recreates every offer it holds with no
// failure (ranks, gallery images uploaded from the files pull downloaded), and reconciled back onto the seller it
// came from with a fresh state db it writes nothing and uploads nothing. Under the document's answers and the real
// marketplace's accounts.
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { REAL_SERVER_SWITCHES_ACCOUNTS, type SandboxOptions } from '../../src/sandbox/sandbox-options.ts';
import { mainCaptured } from '../support/captured-io.ts';
import { createHarness, type Harness, requestsByRoute, TEST_KEY } from '../support/harness.ts';

const EXAMPLE = fileURLToPath(new URL('../../config/example-catalogue', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'offersync-pull-recreate-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let open: Harness[] = [];
afterEach(async () => {
  for (const h of open) await h.close();
  open = [];
});

async function harness(sandbox: SandboxOptions): Promise<Harness> {
  const h = await createHarness({ sandbox });
  open.push(h);
  return h;
}

/** The seller's accounts as stored, by external_id: what a recreation must carry over. */
function accountsOf(h: Harness, returned: readonly string[]): Map<string, Record<string, unknown>> {
  const keep = ['title', 'price', 'current_rank', 'current_division', 'flex_rank', 'level', ...returned];
  return new Map(
    h.sandbox.dump().accounts.map((a) => [
      String(a.external_id),
      {
        ...Object.fromEntries(keep.map((k) => [k, a[k] ?? null])),
        images: (a.image_ids as unknown[]).length,
      },
    ]),
  );
}

/** Beside the document's fields, what each answers with: the document's account answer has no game or server. */
const CASES: readonly [string, SandboxOptions, readonly string[]][] = [
  ["the document's answers", {}, []],
  ["the real marketplace's accounts", REAL_SERVER_SWITCHES_ACCOUNTS, ['game', 'server']],
];

describe.each(CASES)('a pulled catalogue, with %s', (name, sandbox, returned) => {
  it('recreates the shop on an empty seller with no failure, and plans no write on its own seller', async () => {
    const shop = await harness(sandbox);
    cpSync(EXAMPLE, shop.catalogueDir, { recursive: true });
    expect((await shop.reconcile()).report.outcome).toBe('converged');
    const out = join(root, name.replace(/\W+/g, '-'));
    const pulled = await mainCaptured(['pull', '--out', out], {
      cwd: root,
      env: { OFFERSYNC_BASE_URL: shop.sandbox.url, OFFERSYNC_API_KEY: TEST_KEY, OFFERSYNC_LOG_LEVEL: 'silent' },
    });
    expect(pulled.code, pulled.out + pulled.err).toBe(0);
    expect(pulled.out).toContain('images/: 3 gallery image(s) downloaded');
    expect(readdirSync(join(out, 'images'))).toHaveLength(3);

    const empty = await harness(sandbox);
    cpSync(out, empty.catalogueDir, { recursive: true });
    const recreated = await empty.reconcile();
    const failed = recreated.report.outcomes.filter((o) => o.outcome === 'failed');
    expect(failed, JSON.stringify(failed)).toEqual([]);
    const created = Object.values(recreated.report.counts).reduce((n, row) => n + row.created, 0);
    const dump = empty.sandbox.dump();
    expect(created).toBe(dump.accounts.length + dump.items.length + dump.topUps.length);
    expect(recreated.report.outcome).toBe('converged');
    expect(accountsOf(empty, returned)).toEqual(accountsOf(shop, returned));
    expect(empty.sandbox.dump().items).toHaveLength(shop.sandbox.dump().items.length);
    expect(empty.sandbox.dump().topUps).toHaveLength(shop.sandbox.dump().topUps.length);
    expect(empty.sandbox.dump().images).toHaveLength(3);

    // Back on the seller it came from, with a fresh state db: every offer adopted, nothing written or uploaded.
    shop.config = {
      ...shop.config,
      catalogue: { ...shop.config.catalogue, dir: out },
      state: { ...shop.config.state, path: join(out, '..', `${name.replace(/\W+/g, '-')}.db`) },
    };
    shop.sandbox.resetCounters();
    const adopted = await shop.reconcile();
    expect(adopted.report.outcome).toBe('converged');
    expect(shop.writes()).toBe(0);
    expect(requestsByRoute(shop.sandbox)['POST /api/v1/images'] ?? 0).toBe(0);
  });
});
