// Reconcile end to end in one process: the real client, queue, state db and catalogue against a real
// sandbox on 127.0.0.1. The sandbox's counters are the witness of what was sent.
import type { SoldEntry } from '../../src/sales/sold-log.ts';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { LeaseHeldError } from '../../src/state/writer-lease.ts';
import { createLogger } from '../../src/log/logger.ts';
import { ServerError } from '../../src/marketplace/marketplace-errors.ts';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { overrideMethod } from '../support/client-override.ts';
import { createHarness, requestsByRoute, tinyPng, TEST_KEY, type Harness } from '../support/harness.ts';

const PASSWORD = 'hunter2-S3CRET-pw';

function seed(h: Harness, accounts = 3): void {
  h.write('images/a.png', tinyPng(10));
  h.write(
    'accounts/main.json',
    JSON.stringify(
      Array.from({ length: accounts }, (_, i) => ({
        external_id: `acc-${i}`,
        title: `Gold account ${i}`,
        price: 1000 + i,
        rank: 'Gold II',
        level: 30 + i,
        champions: ['Ahri', 'Lux'],
        ...(i === 0 ? { images: ['images/a.png'], credentials: { login: `user${i}`, password: PASSWORD } } : {}),
      })),
    ),
  );
  h.write(
    'items/items.json',
    JSON.stringify([
      { external_id: 'item-1', title: 'Rare skin', price: 500, stock: 2, type: 'skin', description: 'first words' },
      { external_id: 'item-2', title: 'Gold pack', price: 250, stock: 10, type: 'gold' },
    ]),
  );
  h.write(
    'top-ups/topups.ndjson',
    `${[
      {
        external_id: 'tu-1',
        offer_title: '100 gems',
        price: 199,
        offer_amount: 100,
        offer_unit: 'gems',
        waiting_time_value: 5,
        waiting_time_unit: 'minutes',
      },
      { external_id: 'tu-2', offer_title: '500 gems', price: 899, offer_amount: 500, offer_unit: 'gems' },
    ]
      .map((o) => JSON.stringify(o))
      .join('\n')}\n`,
  );
}

function byExternalId(rows: Record<string, unknown>[]): Map<string, Record<string, unknown>> {
  return new Map(rows.map((r) => [String(r.external_id), r]));
}

function writeRoutes(h: Harness): Record<string, number> {
  return Object.fromEntries(Object.entries(requestsByRoute(h.sandbox)).filter(([route]) => !route.startsWith('GET ')));
}

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('reconcile against the sandbox', () => {
  it('converges field by field, then a second run sends no write and only list requests', async () => {
    h = await createHarness();
    seed(h);
    const first = await h.reconcile();
    expect(first.report.outcome).toBe('converged');
    const dump = h.sandbox.dump();
    const accounts = byExternalId(dump.accounts);
    expect([...accounts.keys()].sort()).toEqual(['acc-0', 'acc-1', 'acc-2']);
    const a0 = accounts.get('acc-0')!;
    expect(a0).toMatchObject({
      title: 'Gold account 0',
      price: 1000,
      status: 'listed',
      current_rank: 'gold',
      current_division: 'II',
      level: 30,
    });
    expect((a0.image_ids as unknown[]).length).toBe(1);
    expect(JSON.stringify(a0)).toContain(PASSWORD); // the sandbox stored the credentials sent
    expect(byExternalId(dump.items).get('item-1')).toMatchObject({
      title: 'Rare skin',
      price: 500,
      stock: 2,
      status: 'listed',
    });
    expect(byExternalId(dump.topUps).get('tu-1')).toMatchObject({
      price: 199,
      offer_amount: 100,
      waiting_time_unit: 'minutes',
      status: 'listed',
    });
    expect(dump.images).toHaveLength(1);

    // The minimum: one list page per kind, one create per offer, one upload.
    expect(h.sandbox.counters().total).toBe(3 + 3 + 2 + 2 + 1);

    h.sandbox.resetCounters();
    const second = await h.reconcile();
    expect(second.report.outcome).toBe('converged');
    expect(h.writes()).toBe(0);
    expect(Object.keys(requestsByRoute(h.sandbox)).sort()).toEqual([
      'GET /api/v1/accounts',
      'GET /api/v1/items',
      'GET /api/v1/top-ups',
    ]);
  });

  it('sends the minimum for a change set: one PATCH per changed offer, top-ups in bulk, archives last', async () => {
    h = await createHarness();
    seed(h);
    await h.reconcile();
    h.sandbox.resetCounters();
    h.write(
      'accounts/main.json',
      JSON.stringify([
        {
          external_id: 'acc-0',
          title: 'Gold account 0',
          price: 1500,
          rank: 'Gold II',
          level: 30,
          champions: ['Ahri', 'Lux'],
          images: ['images/a.png'],
          credentials: { login: 'user0', password: PASSWORD },
        },
        {
          external_id: 'acc-1',
          title: 'Gold account 1',
          price: 1001,
          rank: 'Gold II',
          level: 31,
          champions: ['Ahri', 'Lux'],
        },
      ]),
    );
    h.write(
      'items/items.json',
      JSON.stringify([
        { external_id: 'item-1', title: 'Rare skin', price: 500, stock: 2, type: 'skin', description: 'new words' },
        { external_id: 'item-2', title: 'Gold pack', price: 250, stock: 10, type: 'gold' },
      ]),
    );
    h.write(
      'top-ups/topups.ndjson',
      [
        {
          external_id: 'tu-1',
          offer_title: '100 gems',
          price: 249,
          offer_amount: 100,
          offer_unit: 'gems',
          waiting_time_value: 5,
          waiting_time_unit: 'minutes',
        },
        { external_id: 'tu-2', offer_title: '500 gems', price: 999, offer_amount: 500, offer_unit: 'gems' },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n'),
    );
    const run = await h.reconcile();
    expect(run.report.outcome).toBe('converged');
    expect(writeRoutes(h)).toEqual({
      'PATCH /api/v1/accounts/{identifier}': 1,
      'PATCH /api/v1/items/{identifier}': 1,
      'POST /api/v1/top-ups/bulk-update': 1,
      'DELETE /api/v1/accounts/{identifier}': 1,
    });
    const dump = h.sandbox.dump();
    expect(byExternalId(dump.accounts).get('acc-2')!.status).toBe('archived');
    expect(byExternalId(dump.accounts).get('acc-0')!.price).toBe(1500);
    expect(byExternalId(dump.topUps).get('tu-2')!.price).toBe(999);
    h.sandbox.resetCounters();
    await h.reconcile();
    expect(h.writes()).toBe(0);
  });

  it('never patches, archives or re-creates an offer sold during a run, and records it in sold.jsonl', async () => {
    h = await createHarness();
    seed(h);
    await h.reconcile();
    h.sandbox.setStatus('accounts', 'acc-1', 'sold');
    h.sandbox.setStatus('accounts', 'acc-2', 'sold');
    h.sandbox.resetCounters();
    // acc-1 changed in the catalogue, acc-2 removed from it.
    h.write(
      'accounts/main.json',
      JSON.stringify([
        {
          external_id: 'acc-0',
          title: 'Gold account 0',
          price: 1000,
          rank: 'Gold II',
          level: 30,
          champions: ['Ahri', 'Lux'],
          images: ['images/a.png'],
          credentials: { login: 'user0', password: PASSWORD },
        },
        {
          external_id: 'acc-1',
          title: 'Gold account 1',
          price: 7777,
          rank: 'Gold II',
          level: 31,
          champions: ['Ahri', 'Lux'],
        },
      ]),
    );
    const run = await h.reconcile();
    expect(h.writes()).toBe(0);
    expect(run.report.counts.account?.sold).toBe(2);
    const sold = readFileSync(`${h.dir}/state/sold.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as SoldEntry)
      .sort((a, b) => a.external_id.localeCompare(b.external_id));
    expect(sold.map((s) => s.external_id)).toEqual(['acc-1', 'acc-2']);
    // The marketplace's sold_at, and the title and price the offer was listed with (not the catalogue's new 7777).
    expect(sold[0]).toMatchObject({ title: 'Gold account 1', price: 1001, sold_at_source: 'marketplace' });
    expect(sold[0]?.sold_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(new Set(sold.map((s) => s.sale_key)).size).toBe(2);
    await h.reconcile();
    expect(readFileSync(`${h.dir}/state/sold.jsonl`, 'utf8').trim().split('\n')).toHaveLength(2); // once per sale
  });

  it('adopts everything and creates nothing when the state db is lost', async () => {
    h = await createHarness();
    seed(h);
    await h.reconcile();
    for (const f of ['state.db', 'state.db-wal', 'state.db-shm']) rmSync(`${h.dir}/state/${f}`, { force: true });
    h.sandbox.resetCounters();
    const run = await h.reconcile();
    expect(run.report.outcome).toBe('converged');
    const posts = Object.entries(requestsByRoute(h.sandbox)).filter(
      ([r]) => r.startsWith('POST') && !r.includes('bulk'),
    );
    expect(posts.filter(([r]) => r !== 'POST /api/v1/images')).toEqual([]);
    const adopted = Object.values(run.report.counts).reduce((n, row) => n + row.adopted, 0);
    expect(adopted).toBe(7);
    const dump = h.sandbox.dump();
    expect(dump.accounts).toHaveLength(3);
    expect(dump.items).toHaveLength(2);
    expect(dump.topUps).toHaveLength(2);
  });

  it("never mistakes an all-digit external_id for another offer's id, even after the state db is lost", async () => {
    h = await createHarness();
    // Sandbox ids start at 1: external_id "2" names a different offer than id 2 does.
    h.write(
      'items/digits.json',
      JSON.stringify([
        { external_id: 'named', title: 'Named', price: 100 },
        { external_id: '2', title: 'Digits two', price: 200 },
        { external_id: '1', title: 'Digits one', price: 300 },
      ]),
    );
    expect((await h.reconcile()).report.outcome).toBe('converged');
    const byExt = () => byExternalId(h.sandbox.dump().items);
    expect(byExt().get('2')).toMatchObject({ title: 'Digits two', price: 200 });
    h.write(
      'items/digits.json',
      JSON.stringify([
        { external_id: 'named', title: 'Named', price: 100 },
        { external_id: '2', title: 'Digits two', price: 250 },
        { external_id: '1', title: 'Digits one', price: 300 },
      ]),
    );
    for (const f of ['state.db', 'state.db-wal', 'state.db-shm']) rmSync(`${h.dir}/state/${f}`, { force: true });
    h.sandbox.resetCounters();
    expect((await h.reconcile()).report.outcome).toBe('converged');
    const items = byExt();
    expect(items.size).toBe(3);
    expect(items.get('2')).toMatchObject({ title: 'Digits two', price: 250 });
    expect(items.get('1')).toMatchObject({ title: 'Digits one', price: 300 });
    expect(items.get('named')).toMatchObject({ title: 'Named', price: 100 });
    expect(Object.keys(requestsByRoute(h.sandbox)).filter((r) => r.startsWith('POST'))).toEqual([]);
  });

  it('stops before the first write when it would archive too many; --allow-mass-archive goes through', async () => {
    h = await createHarness();
    seed(h, 30);
    await h.reconcile();
    h.write('accounts/main.json', '[]');
    h.sandbox.resetCounters();
    const stopped = await h.reconcile();
    expect(stopped.report.outcome).toBe('aborted');
    expect(stopped.report.messages.join()).toMatch(/--allow-mass-archive/);
    expect(h.writes()).toBe(0);
    const allowed = await h.reconcile({ allowMassArchive: true });
    expect(allowed.report.counts.account?.archived).toBe(30);
    expect(writeRoutes(h)).toEqual({ 'POST /api/v1/accounts/bulk-remove': 1 });
  });

  it('leaves the offers of a file that no longer parses alone', async () => {
    h = await createHarness();
    seed(h);
    await h.reconcile();
    h.write('accounts/main.json', '[{"external_id": "acc-0", "title": ');
    h.sandbox.resetCounters();
    const run = await h.reconcile();
    expect(h.writes()).toBe(0);
    expect(run.report.outcome).toBe('partial');
    expect(h.sandbox.dump().accounts.every((a) => a.status === 'listed')).toBe(true);
  });

  it('reports a catalogue error at file:line:column, with the JSON pointer, as editors read it', async () => {
    h = await createHarness();
    h.write(
      'items/items.json',
      '[\n  { "external_id": "i-1", "title": "Skin", "type": "skin", "price": "cheap" }\n]\n',
    );
    h.write('top-ups/gems.csv', 'external_id,offer_title,price,offer_amount,offer_unit\nt-1,Gems,oops,100,gems\n');
    const run = await h.reconcile();
    const failures = run.report.outcomes.filter((o) => o.outcome === 'invalid');
    expect(failures).toEqual([
      expect.objectContaining({ kind: 'item', externalId: 'i-1', file: 'items/items.json:2:69#/0/price' }),
      expect.objectContaining({ kind: 'topup', externalId: 't-1', file: 'top-ups/gems.csv:2:10' }),
    ]);
  });

  it('patches back an edit made on the website (local wins)', async () => {
    h = await createHarness();
    seed(h);
    await h.reconcile();
    const res = await fetch(`${h.sandbox.url}/api/v1/items/item-2`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Edited on the website' }),
    });
    expect(res.ok).toBe(true);
    h.sandbox.resetCounters();
    const run = await h.reconcile();
    expect(run.plan.actions.find((a) => a.type === 'update' && a.externalId === 'item-2')).toMatchObject({
      reason: 'drift',
    });
    expect(byExternalId(h.sandbox.dump().items).get('item-2')!.title).toBe('Gold pack');
  });

  it('falls back to single calls when the bulk routes and account PATCH are refused, and says so', async () => {
    h = await createHarness({
      sandbox: { faults: { disabled: ['accounts.bulkRemove', 'topUps.bulkUpdate', 'accounts.update'] } },
    });
    seed(h, 4);
    await h.reconcile();
    h.write(
      'accounts/main.json',
      JSON.stringify([
        {
          external_id: 'acc-0',
          title: 'Gold account 0',
          price: 9999,
          rank: 'Gold II',
          level: 30,
          champions: ['Ahri', 'Lux'],
          images: ['images/a.png'],
          credentials: { login: 'user0', password: PASSWORD },
        },
      ]),
    );
    h.write(
      'top-ups/topups.ndjson',
      JSON.stringify({
        external_id: 'tu-1',
        offer_title: '100 gems',
        price: 1,
        offer_amount: 100,
        offer_unit: 'gems',
        waiting_time_value: 5,
        waiting_time_unit: 'minutes',
      }) +
        '\n' +
        JSON.stringify({
          external_id: 'tu-2',
          offer_title: '500 gems',
          price: 2,
          offer_amount: 500,
          offer_unit: 'gems',
        }),
    );
    // Prices of 1 and 2 cents: the price guard would stop it; 3 of 4 accounts go: so would the mass-archive guard.
    const run = await h.reconcile({ allowPriceChange: true, allowMassArchive: true });
    const dump = h.sandbox.dump();
    expect(byExternalId(dump.accounts).get('acc-3')!.status).toBe('archived');
    expect(byExternalId(dump.topUps).get('tu-2')!.price).toBe(2);
    const blocked = run.report.outcomes.filter((o) => o.outcome === 'blocked');
    expect(blocked.map((o) => o.externalId)).toEqual(['acc-0']);
    expect(blocked[0]!.message).toMatch(/PATCH \/accounts/);
    // Learnt once: the next run does not knock on the refused routes again.
    h.sandbox.resetCounters();
    const again = await h.reconcile();
    expect(again.report.outcomes.filter((o) => o.outcome === 'blocked').map((o) => o.externalId)).toEqual(['acc-0']);
    expect(h.writes()).toBe(0);
  });

  it('an account PATCH probe failing with a 5xx does not stall other updates (regression: waiters loop)', async () => {
    h = await createHarness();
    seed(h, 3);
    await h.reconcile();
    const raised = JSON.parse(readFileSync(`${h.catalogueDir}/accounts/main.json`, 'utf8')) as { price: number }[];
    h.write('accounts/main.json', JSON.stringify(raised.map((a) => ({ ...a, price: a.price + 1 }))));
    let failures = 1;
    const flaky = (client: MarketplaceClient): MarketplaceClient =>
      overrideMethod(client, 'accounts', 'update', (original, ...args) =>
        failures-- > 0
          ? Promise.reject(new ServerError({ method: 'PATCH', path: '/api/v1/accounts/1', status: 503 }))
          : original(...args),
      );
    const run = await h.reconcile({}, undefined, flaky);
    const accounts = run.report.outcomes.filter((o) => o.kind === 'account');
    expect(accounts.filter((o) => o.outcome === 'updated')).toHaveLength(2);
    expect(accounts.filter((o) => o.outcome === 'failed')).toHaveLength(1);
    const next = await h.reconcile();
    expect(next.report.outcome).toBe('converged');
  });

  it('recreate fallback: a server that keeps archived external_ids costs one offer, not all of them', async () => {
    h = await createHarness({
      sandbox: { faults: { disabled: ['accounts.update'] } },
      config: { accounts: { updateFallback: 'recreate' } },
    });
    seed(h, 3);
    await h.reconcile();
    const raised = JSON.parse(readFileSync(`${h.catalogueDir}/accounts/main.json`, 'utf8')) as { price: number }[];
    h.write('accounts/main.json', JSON.stringify(raised.map((a) => ({ ...a, price: a.price + 100 }))));
    const run = await h.reconcile();
    const accounts = run.report.outcomes.filter((o) => o.kind === 'account');
    expect(accounts.filter((o) => o.outcome === 'failed')).toHaveLength(1);
    expect(accounts.find((o) => o.outcome === 'failed')!.message).toMatch(/keeps archived external_ids/);
    expect(accounts.filter((o) => o.outcome === 'blocked')).toHaveLength(2);
    expect(h.sandbox.dump().accounts.filter((a) => a.status === 'archived')).toHaveLength(1);
  });

  it('converges with zero duplicates through 5xx, dropped connections, lost responses and 429 bursts', async () => {
    h = await createHarness({
      sandbox: {
        faults: { errorRate: 0.1, dropRate: 0.05, lostResponseRate: 0.1, seed: 7 },
        rateLimit: { ratePerSec: 200, burst: 5 },
      },
      config: { rateLimit: { ratePerSec: 400, burst: 50, maxAttempts: 10 }, http: { timeoutMs: 2000, connections: 8 } },
    });
    seed(h, 25);
    let outcome = '';
    for (let round = 0; round < 3 && outcome !== 'converged'; round++) outcome = (await h.reconcile()).report.outcome;
    expect(outcome).toBe('converged');
    h.sandbox.setFaults({});
    const dump = h.sandbox.dump();
    for (const rows of [dump.accounts, dump.items, dump.topUps]) {
      const ids = rows.map((r) => r.external_id);
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(dump.accounts).toHaveLength(25);
    expect(dump.images).toHaveLength(1);
    h.sandbox.resetCounters();
    await h.reconcile();
    expect(h.writes()).toBe(0);
  });

  it('refuses to write while another process holds the lease', async () => {
    h = await createHarness();
    seed(h);
    await h.reconcile();
    const other = await openStateStore(h.statePath);
    expect(
      (
        await other.acquireLease(
          { holder: 'elsewhere', pid: 4242, hostname: 'other-host', scope: 'another-boot' },
          60_000,
        )
      ).ok,
    ).toBe(true);
    await expect(h.reconcile()).rejects.toThrow(LeaseHeldError);
    await expect(h.reconcile()).rejects.toThrow(/pid 4242 on other-host/);
    await other.releaseLease('elsewhere');
    other.close();
    await expect(h.reconcile()).resolves.toBeTruthy();
  });

  it('keeps the API key and passwords out of the state db and the logs', async () => {
    h = await createHarness({ sandbox: { faults: { errorRate: 0.2, seed: 3 } } });
    seed(h);
    const lines: string[] = [];
    const logger = createLogger({ level: 'trace', destination: { write: (l: string) => lines.push(l) } });
    await h.reconcile({}, logger);
    // A change of password goes out again (as an HMAC difference), still never logged or stored.
    h.write(
      'accounts/main.json',
      readFileSync(`${h.catalogueDir}/accounts/main.json`, 'utf8').replace(PASSWORD, `${PASSWORD}-2`),
    );
    await h.reconcile({}, logger);
    expect(lines.length).toBeGreaterThan(5);
    const log = lines.join('');
    expect(log).not.toContain(PASSWORD);
    expect(log).not.toContain(TEST_KEY);
    for (const f of ['state.db', 'state.db-wal']) {
      const path = `${h.dir}/state/${f}`;
      if (!existsSync(path)) continue;
      const bytes = readFileSync(path);
      expect(bytes.includes(Buffer.from(PASSWORD))).toBe(false);
      expect(bytes.includes(Buffer.from(TEST_KEY))).toBe(false);
    }
  });
});

describe.each([
  ['single objects wrapped in data', { wrapSingle: true }],
  ['timestamps as epoch seconds', { epochTimestamps: true }],
  ['integers as strings', { integersAsStrings: true }],
  ['creates answered 201', { createStatus201: true }],
  ['paths route only numeric ids', { numericIdPathsOnly: true }],
  ['game as an object', { gameAsObject: true }],
  [
    'all of them',
    {
      wrapSingle: true,
      epochTimestamps: true,
      integersAsStrings: true,
      createStatus201: true,
      numericIdPathsOnly: true,
      gameAsObject: true,
    },
  ],
])('reconcile when the server represents things differently: %s', (_name, representation) => {
  it('converges, and the next run (with a change) patches once, then sends nothing', async () => {
    h = await createHarness({ sandbox: { representation } });
    seed(h);
    h.write(
      'items/extra.json',
      JSON.stringify([{ external_id: 'item-g', title: 'With game', price: 300, game: 'league-of-legends' }]),
    );
    expect((await h.reconcile()).report.outcome).toBe('converged');
    h.sandbox.resetCounters();
    expect((await h.reconcile()).report.outcome).toBe('converged');
    expect(h.writes()).toBe(0);
    h.write(
      'items/extra.json',
      JSON.stringify([{ external_id: 'item-g', title: 'With game', price: 350, game: 'league-of-legends' }]),
    );
    await h.reconcile();
    expect(writeRoutes(h)).toEqual({ 'PATCH /api/v1/items/{identifier}': 1 });
    h.sandbox.resetCounters();
    await h.reconcile();
    expect(h.writes()).toBe(0);
  });
});
