// A lost state db costs nothing on a converged shop: adoption compares credentials (sealed into the catalogue's
// own HMAC), ranks (read from parameters where the server maps them there) and gallery images (by content) with
// what the marketplace returns, so it writes nothing and uploads nothing. Under the document's answers and under
// the real marketplace's (representation.realAccounts), against the sandbox's counters.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/sandbox-options.ts';
import { REAL_SERVER_SWITCHES_ACCOUNTS } from '../../src/sandbox/sandbox-options.ts';
import { createHarness, type Harness, requestsByRoute, tinyPng } from '../support/harness.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/**
 * `returned`: only fields the answers carry. The document's account answer has no game, server, previous rank or
 * credentials: a field never echoed can only be compared with what was last sent, which a lost state db forgets.
 */
function seed(harness: Harness, returned: 'document' | 'real'): void {
  const real = returned === 'real';
  harness.write('images/a.png', tinyPng(10));
  harness.write('images/b.png', tinyPng(20));
  harness.write(
    'accounts/main.json',
    JSON.stringify(
      Array.from({ length: 3 }, (_, i) => ({
        external_id: `acc-${i}`,
        title: `Gold account ${i}`,
        price: 1000 + i,
        ...(real ? { game: 'lol', server: 'euw', previous_rank: 'Master', previous_lp: 80 } : {}),
        description: `Account number ${i}`,
        rank: 'Gold II',
        flex_rank: 'diamond',
        flex_division: 'IV',
        level: 30 + i,
        champion_count: 40,
        images: i === 2 ? [] : ['images/a.png', 'images/b.png'],
        ...(real ? { credentials: { login: `user${i}`, password: `pw-${i}-secret` } } : {}),
      })),
    ),
  );
  harness.write(
    'items/items.json',
    JSON.stringify([{ external_id: 'item-1', title: 'Rare skin', price: 500, stock: 2, type: 'skin' }]),
  );
}

function loseState(harness: Harness): void {
  rmSync(`${harness.dir}/state`, { recursive: true, force: true });
}

const uploads = (harness: Harness) => requestsByRoute(harness.sandbox)['POST /api/v1/images'] ?? 0;

const CASES: readonly { name: string; sandbox: SandboxOptions; returned: 'document' | 'real' }[] = [
  { name: "the document's answers", sandbox: {}, returned: 'document' },
  { name: "the real marketplace's accounts", sandbox: REAL_SERVER_SWITCHES_ACCOUNTS, returned: 'real' },
];

describe('a converged shop whose state db is lost', () => {
  for (const c of CASES)
    it(`gets no write and no upload: ${c.name}`, async () => {
      h = await createHarness({ sandbox: c.sandbox });
      seed(h, c.returned);
      const first = await h.reconcile();
      expect(first.report.outcome).toBe('converged');
      expect(uploads(h)).toBe(2);
      h.sandbox.resetCounters();
      await h.reconcile();
      expect(h.writes()).toBe(0); // converged before the loss

      loseState(h);
      h.sandbox.resetCounters();
      const run = await h.reconcile();
      expect(run.report.outcome).toBe('converged');
      expect(h.writes()).toBe(0);
      expect(uploads(h)).toBe(0);
      expect(h.sandbox.dump().images).toHaveLength(2);
      const adopted = Object.values(run.report.counts).reduce((n, row) => n + row.adopted, 0);
      expect(adopted).toBe(4);

      // The mapping is kept: the next run reads no image and writes nothing either.
      h.sandbox.resetCounters();
      await h.reconcile();
      expect(h.writes()).toBe(0);
      expect(Object.keys(requestsByRoute(h.sandbox)).filter((r) => r.includes('image'))).toEqual([]);
    });

  it('reads no gallery for a new image of an account the state db knows: it is uploaded, once', async () => {
    h = await createHarness({ sandbox: REAL_SERVER_SWITCHES_ACCOUNTS });
    seed(h, 'real');
    await h.reconcile();
    h.write('images/c.png', tinyPng(30));
    h.write(
      'accounts/extra.json',
      JSON.stringify([{ external_id: 'acc-new', title: 'New', price: 500, images: ['images/c.png'] }]),
    );
    h.sandbox.resetCounters();
    await h.reconcile();
    const routes = requestsByRoute(h.sandbox);
    expect(routes['POST /api/v1/images']).toBe(1);
    expect(routes['GET /api/v1/images']).toBeUndefined();
    expect(routes['GET /storage/gallery/{filename}']).toBeUndefined();
  });

  it('still sends what really differs: a password changed while the state db was gone', async () => {
    h = await createHarness({ sandbox: REAL_SERVER_SWITCHES_ACCOUNTS });
    seed(h, 'real');
    await h.reconcile();
    loseState(h);
    const file = [
      {
        external_id: 'acc-0',
        title: 'Gold account 0',
        price: 1000,
        credentials: { login: 'user0', password: 'new-pw' },
      },
    ];
    h.write('accounts/main.json', JSON.stringify(file));
    h.remove('items/items.json');
    h.sandbox.resetCounters();
    await h.reconcile({ allowMassArchive: true });
    const acc0 = h.sandbox.dump().accounts.find((a) => a.external_id === 'acc-0')!;
    expect(acc0.credentials).toEqual({ login: 'user0', password: 'new-pw' });
    expect(requestsByRoute(h.sandbox)['PATCH /api/v1/accounts/{identifier}']).toBe(1);
  });
});
