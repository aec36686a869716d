// The remote snapshot against a real sandbox: full sweeps in a stable order, incremental reads that stop at the
// cutoff, and the rule (docs/architecture.md, Lists) that an offer missing from a list is confirmed by GET, where
// only a definite 404 makes it gone.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/sandbox-server.ts';
import { createMarketplaceClient } from '../../../src/marketplace/undici-marketplace-client.ts';
import { BadResponseError, ServerError, UnauthenticatedError } from '../../../src/marketplace/marketplace-errors.ts';
import type { MarketplaceClient, RemoteOffer } from '../../../src/marketplace/marketplace-client.ts';
import { overrideMethod } from '../../support/client-override.ts';
import { routesMatching } from '../../marketplace/support/contract.ts';
import type { OfferRecord } from '../../../src/state/records.ts';
import { type OfferView, offerViewOf } from '../../../src/state/offer-view.ts';
import { silentLogger } from '../../../src/log/logger.ts';
import { readSnapshot } from '../../../src/sync/plan/read-snapshot.ts';
import { offerRecord } from '../../support/offers.ts';

const KEY = 'snapshot-key-1';
let sandbox: RunningSandbox;
let client: MarketplaceClient;

/** The real client, except that GET by id of the accounts fails with `err`: what a flaky marketplace does. */
function withFailingGet(err: Error): MarketplaceClient {
  return overrideMethod(client, 'accounts', 'get', () => Promise.reject(err));
}

async function seedAccounts(n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++)
    ids.push(
      (await client.accounts.create({ external_id: `s-${i}`, title: `S ${i}`, price: 100 + i, status: 'listed' })).id,
    );
  return ids;
}

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  client = createMarketplaceClient({ baseUrl: sandbox.url, apiKey: KEY });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});
beforeEach(() => sandbox.reset());

describe('readSnapshot', () => {
  it('only some offers (a joining run): a GET each the state maps, no list, the state for the rest', async () => {
    const ids = await seedAccounts(3);
    const state = [
      offerRecord('account', 's-0', { remoteId: ids[0]! }),
      offerRecord('account', 's-1', { remoteId: 999_999 }),
      offerRecord('account', 's-2', { remoteId: ids[2]! }),
    ];
    sandbox.resetCounters();
    const { snapshot, pages } = await readSnapshot({
      client,
      state,
      mode: 'incremental',
      perPage: 5,
      logger: silentLogger,
      keys: ['account:s-0', 'account:s-1', 'account:new-one'],
    });
    expect(pages).toBe(0);
    expect(sandbox.counters().byRoute['GET /api/v1/accounts']).toBeUndefined();
    expect(sandbox.counters().total).toBe(2);
    expect([...snapshot.kinds.account.offers.keys()]).toEqual(['s-0']);
    expect([...snapshot.gone]).toEqual(['account:s-1']);
    expect(snapshot.kinds.account).toMatchObject({ full: false, complete: true });
    expect(snapshot.kinds.item).toMatchObject({ full: false, complete: true });
  });

  it('a full sweep reads every page in id order, each offer once', async () => {
    await seedAccounts(23);
    const { snapshot, pages } = await readSnapshot({
      client,
      state: [],
      mode: 'full',
      perPage: 5,
      logger: silentLogger,
    });
    expect(snapshot.kinds.account.offers.size).toBe(23);
    expect(snapshot.kinds.account.complete).toBe(true);
    expect(pages).toBe(5 + 1 + 1); // 5 account pages, one empty page each for items and top-ups
    expect(sandbox.counters().byRoute['GET /api/v1/accounts']).toBeDefined();
  });

  it('an incremental read stops once it passes the cutoff', async () => {
    await seedAccounts(30);
    const first = await readSnapshot({ client, state: [], mode: 'full', perPage: 5, logger: silentLogger });
    const cutoff = Date.now();
    await client.accounts.update({ id: first.snapshot.kinds.account.offers.get('s-3')!.id }, { price: 999 });
    sandbox.resetCounters();
    const inc = await readSnapshot({
      client,
      state: [],
      mode: 'incremental',
      cutoffs: { account: cutoff },
      perPage: 5,
      logger: silentLogger,
    });
    expect(inc.snapshot.kinds.account.full).toBe(false);
    expect(inc.snapshot.kinds.account.offers.has('s-3')).toBe(true);
    expect(inc.snapshot.kinds.account.offers.size).toBeLessThan(6);
    expect(sandbox.counters().byRoute['GET /api/v1/accounts']!['200']).toBe(1);
  });

  it('confirms by GET an offer the state maps but the list lacks: a 404 makes it gone', async () => {
    await seedAccounts(2);
    const state = [
      offerRecord('account', 's-0', { remoteId: 1, lastApplied: {} }),
      offerRecord('account', 'vanished', { remoteId: 424242, lastApplied: {} }),
    ];
    const { snapshot } = await readSnapshot({ client, state, mode: 'full', perPage: 100, logger: silentLogger });
    expect([...snapshot.gone]).toEqual(['account:vanished']);
    expect([...snapshot.unconfirmed]).toEqual([]);
  });

  it.each([
    ['a 5xx', new ServerError({ method: 'GET', path: '/api/v1/accounts/424242', status: 503 })],
    ['a 401', new UnauthenticatedError({ method: 'GET', path: '/api/v1/accounts/424242', status: 401 })],
    [
      'an HTML 404 page',
      new BadResponseError({ method: 'GET', path: '/api/v1/accounts/424242', status: 404, bodySnippet: '<html>' }),
    ],
  ])('never takes %s on that GET for gone', async (_name, err) => {
    await seedAccounts(1);
    const { snapshot } = await readSnapshot({
      client: withFailingGet(err),
      state: [offerRecord('account', 'vanished', { remoteId: 424242, lastApplied: {} })],
      mode: 'full',
      perPage: 100,
      logger: silentLogger,
    });
    expect([...snapshot.gone]).toEqual([]);
    expect([...snapshot.unconfirmed]).toEqual(['account:vanished']);
  });

  it('marks a kind incomplete when a list page fails, with the reason', async () => {
    await seedAccounts(12);
    sandbox.setFaults({ errorRate: 1, seed: 1 });
    const { snapshot } = await readSnapshot({ client, state: [], mode: 'full', perPage: 5, logger: silentLogger });
    sandbox.setFaults({});
    expect(snapshot.kinds.account.complete).toBe(false);
    expect(snapshot.kinds.account.error).toMatch(/50\d|server error/);
  });
});

describe('readSnapshot: what the list says, checked', () => {
  const offer = (id: number, externalId: string, updatedAt?: number): RemoteOffer => ({
    id,
    externalId,
    status: 'listed',
    fields: {},
    ...(updatedAt !== undefined ? { updatedAt } : {}),
  });
  /** The real client, with the accounts list answering these pages (and failing after them when `fail`). */
  function listing(pages: RemoteOffer[][], fail?: Error): MarketplaceClient {
    return overrideMethod(client, 'accounts', 'list', () =>
      (async function* () {
        for (const [i, items] of pages.entries()) yield { items, page: i + 1, hasMore: i + 1 < pages.length };
        if (fail) throw fail;
      })(),
    );
  }
  const read = (c: MarketplaceClient, state: OfferRecord[], extra: Partial<Parameters<typeof readSnapshot>[0]> = {}) =>
    readSnapshot({ client: c, state, mode: 'full', perPage: 100, logger: silentLogger, ...extra });

  it('an external_id listed twice: keeps the offer the state maps, and names the duplicate', async () => {
    const c = listing([[offer(5, 'dup'), offer(9, 'dup'), offer(3, 'dup'), offer(7, 'one')]]);
    const { snapshot } = await read(c, [offerRecord('account', 'dup', { remoteId: 9, lastApplied: {} })]);
    expect(snapshot.kinds.account.offers.get('dup')?.id).toBe(9);
    expect(snapshot.kinds.account.duplicates).toEqual(['dup']);
    expect(snapshot.kinds.account.offers.get('one')?.id).toBe(7);
  });

  it('a read that fails after a duplicate still names it, and keeps what it read', async () => {
    const c = listing([[offer(5, 'dup'), offer(3, 'dup'), offer(8, 'one')]], new Error('page 2 failed'));
    const { snapshot } = await read(c, []);
    expect(snapshot.kinds.account).toMatchObject({ complete: false, full: true, duplicates: ['dup'] });
    expect([...snapshot.kinds.account.offers.keys()]).toEqual(['dup', 'one']);
  });

  it('the same offer on two pages (the list moved under writes) is not a duplicate', async () => {
    const { snapshot } = await read(listing([[offer(5, 'a')], [offer(5, 'a')]]), []);
    expect(snapshot.kinds.account.duplicates).toEqual([]);
    expect(snapshot.kinds.account.offers.get('a')?.id).toBe(5);
  });

  it('a full read with cutoffs known still reads every page, in id order', async () => {
    const sorts: unknown[] = [];
    const c = overrideMethod(client, 'accounts', 'list', (_original, ...args) => {
      sorts.push((args[0] as { sort?: string }).sort);
      return (async function* () {
        yield { items: [offer(1, 'new', 5000), offer(2, 'old', 10)], page: 1, hasMore: false };
      })();
    });
    const full = await read(c, [], { mode: 'full', cutoffs: { account: 1000 } });
    expect(sorts).toEqual(['id']);
    expect(full.snapshot.kinds.account.full).toBe(true);
    expect([...full.snapshot.kinds.account.offers.keys()]).toEqual(['new', 'old']);
  });

  it('an external_id listed twice that the state does not map: keeps the older (lower id)', async () => {
    const { snapshot } = await read(listing([[offer(5, 'dup'), offer(9, 'dup'), offer(3, 'dup')]]), []);
    expect(snapshot.kinds.account.offers.get('dup')?.id).toBe(3);
    const other = await read(listing([[offer(3, 'dup'), offer(5, 'dup')]]), [
      offerRecord('account', 'dup', { remoteId: 42, lastApplied: {} }),
    ]);
    expect(other.snapshot.kinds.account.offers.get('dup')?.id).toBe(3);
  });

  it('a state row the list missed but its GET finds (the list moved under writes) is taken as listed', async () => {
    const [id] = await seedAccounts(1);
    const { snapshot } = await read(listing([[]]), [offerRecord('account', 's-0', { remoteId: id!, lastApplied: {} })]);
    expect(snapshot.kinds.account.offers.get('s-0')?.id).toBe(id);
    expect([...snapshot.gone, ...snapshot.unconfirmed]).toEqual([]);
  });

  it('looks up no state row when the list returned every one the state maps', async () => {
    const inner = offerViewOf([offerRecord('account', 'a', { remoteId: 5, lastApplied: {} })]);
    const lookups: number[] = [];
    const state: OfferView = {
      ...inner,
      getMany: (keys) => {
        lookups.push(keys.length);
        return inner.getMany(keys);
      },
    };
    const { snapshot } = await readSnapshot({
      client: listing([[offer(5, 'a')]]),
      state,
      mode: 'full',
      perPage: 100,
      logger: silentLogger,
    });
    expect(snapshot.kinds.account.offers.get('a')?.id).toBe(5);
    expect(lookups).toEqual([]);
  });

  it('a GET that answers another offer under that id (the id was reused) makes it gone', async () => {
    const [id] = await seedAccounts(1);
    const { snapshot } = await read(listing([[]]), [
      offerRecord('account', 'renamed', { remoteId: id!, lastApplied: {} }),
    ]);
    expect([...snapshot.gone]).toEqual(['account:renamed']);
    expect(snapshot.kinds.account.offers.has('renamed')).toBe(false);
  });

  it('checks by GET only rows that map an offer not archived, and only after a complete full sweep', async () => {
    sandbox.resetCounters();
    const archived = {
      ...offerRecord('account', 'old', { remoteId: 424242, lastApplied: {} }),
      remoteStatus: 'archived',
    };
    const unmapped = { ...offerRecord('account', 'never-sent', { remoteId: 0, lastApplied: {} }), remoteId: null };
    const first = await read(listing([[]]), [archived, unmapped]);
    expect([...first.snapshot.gone, ...first.snapshot.unconfirmed]).toEqual([]);
    const incomplete = await read(listing([[]], new Error('page 2 failed')), [
      offerRecord('account', 'x', { remoteId: 424243, lastApplied: {} }),
    ]);
    const incremental = await read(
      listing([[offer(1, 'a', 5000)]]),
      [offerRecord('account', 'y', { remoteId: 424244, lastApplied: {} })],
      {
        mode: 'incremental',
        cutoffs: { account: 1000 },
      },
    );
    expect(routesMatching(sandbox, /^GET \/api\/v1\/accounts\/\{identifier\}$/)).toEqual([]);
    expect(incomplete.snapshot.kinds.account.complete).toBe(false);
    expect(incomplete.snapshot.kinds.account.error).toBe('page 2 failed');
    expect(incomplete.snapshot.kinds.account.full).toBe(true);
    expect([...incomplete.snapshot.gone, ...incremental.snapshot.gone]).toEqual([]);
  });

  it('accounts never updated (updated_at null, listed last, newest first): those created since are read', async () => {
    const created = (id: number, externalId: string, createdAt: number): RemoteOffer => ({
      ...offer(id, externalId),
      createdAt,
    });
    const pages = [
      [offer(9, 'edited', 5000), created(8, 'new', 4000), created(7, 'newer-than-cutoff', 1500)],
      [created(6, 'old', 900), created(5, 'older', 800)],
    ];
    const inc = await read(listing(pages), [], { mode: 'incremental', cutoffs: { account: 1000 } });
    expect([...inc.snapshot.kinds.account.offers.keys()]).toEqual(['edited', 'new', 'newer-than-cutoff']);
    // An offer without either stamp tells nothing of its age: the walk goes on past it.
    const bare = await read(listing([[offer(2, 'x'), offer(1, 'y', 10)]]), [], {
      mode: 'incremental',
      cutoffs: { account: 1000 },
    });
    expect([...bare.snapshot.kinds.account.offers.keys()]).toEqual(['x']);
  });

  it('an incremental read sorts by -updated_at and keeps what is newer than the cutoff only', async () => {
    const sorts: unknown[] = [];
    const c = overrideMethod(client, 'accounts', 'list', (_original, ...args) => {
      sorts.push((args[0] as { sort?: string }).sort);
      return (async function* () {
        yield { items: [offer(1, 'new', 5000), offer(2, 'same', 1000), offer(3, 'old', 999)], page: 1, hasMore: true };
        yield { items: [offer(4, 'older', 10)], page: 2, hasMore: false };
      })();
    });
    const inc = await read(c, [], { mode: 'incremental', cutoffs: { account: 1000 } });
    expect(sorts).toEqual(['-updated_at']);
    expect([...inc.snapshot.kinds.account.offers.keys()]).toEqual(['new', 'same']);
    expect(inc.pages).toBe(1 + 2); // one page of accounts, then one each of items and top-ups
    const full = await read(c, [], { mode: 'incremental' }); // no cutoff yet: a full sweep
    expect(sorts[1]).toBe('id');
    expect(full.snapshot.kinds.account.full).toBe(true);
    expect(full.snapshot.kinds.account.offers.size).toBe(4);
  });
});
