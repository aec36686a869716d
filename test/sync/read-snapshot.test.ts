// The remote snapshot against a real sandbox: full sweeps in a stable order, incremental reads that stop at the
// watermark, and the rule (docs/architecture.md, Lists) that an offer missing from a list is confirmed by GET, where
// only a definite 404 makes it gone.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { createMarketplaceClient } from '../../src/marketplace/undici-marketplace-client.ts';
import { BadResponseError, ServerError, UnauthenticatedError } from '../../src/marketplace/errors.ts';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { overrideMethod } from '../support/client-override.ts';
import type { OfferRecord } from '../../src/state/records.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { readSnapshot } from '../../src/sync/read-snapshot.ts';

const KEY = 'snapshot-key-1';
let sandbox: RunningSandbox;
let client: MarketplaceClient;

function record(externalId: string, remoteId: number): OfferRecord {
  return {
    kind: 'account',
    externalId,
    remoteId,
    lastApplied: {},
    credentialsHmac: null,
    imageHashes: [],
    contentHash: null,
    remoteStatus: 'listed',
    remoteUpdatedAt: null,
    managed: true,
    sourceFile: 'accounts/a.json',
    lossyFields: [],
    updatedAt: 0,
  };
}

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

  it('an incremental read stops once it passes the watermark', async () => {
    await seedAccounts(30);
    const first = await readSnapshot({ client, state: [], mode: 'full', perPage: 5, logger: silentLogger });
    await client.accounts.update({ id: first.snapshot.kinds.account.offers.get('s-3')!.id }, { price: 999 });
    sandbox.resetCounters();
    const inc = await readSnapshot({
      client,
      state: [],
      mode: 'incremental',
      watermarks: first.watermarks,
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
    const state = [record('s-0', 1), record('vanished', 424242)];
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
      state: [record('vanished', 424242)],
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
