// Reading back what a bulk call did not itemise through the list sorted by -updated_at, against the sandbox: pages
// are read until every offer asked for was seen, the list ends, or the offers read reach 4 per offer asked for plus
// two default pages (200); only the offers asked for are returned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListOptions, MarketplaceClient } from '../../../src/marketplace/marketplace-client.ts';
import { confirmThroughList } from '../../../src/sync/execute/confirm-through-list.ts';
import type { ExecutionContext } from '../../../src/sync/execute/execution-context.ts';
import { ext, type Sandbox, sandboxAndClient } from '../../marketplace/support/contract.ts';
import { itemBody } from '../../support/offers.ts';

const PER_PAGE = 4;
const ITEMS = 220;
let sandbox: Sandbox;
let client: MarketplaceClient;
let close: () => Promise<void>;
let ids: number[];
let accountId: number;

beforeAll(async () => {
  ({ sandbox, client, close } = await sandboxAndClient({}, { list: { perPage: PER_PAGE } }));
  ids = [];
  for (let i = 0; i < ITEMS; i++) ids.push((await client.items.create(itemBody(ext('ctl')))).id);
  accountId = (await client.accounts.create({ external_id: ext('ctl-acc'), title: 'A', price: 1, game: 'lol' })).id;
});
afterAll(() => close());

const ctx = () => ({ client }) as unknown as ExecutionContext;
const pagesRead = async (run: () => Promise<unknown>): Promise<number> => {
  sandbox.resetCounters();
  await run();
  const byStatus = sandbox.counters().byRoute['GET /api/v1/items'] ?? {};
  return Object.values(byStatus).reduce((a, b) => a + b, 0);
};

describe('confirmThroughList', () => {
  it('stops at the first page that holds every offer asked for', async () => {
    let front: number[] = [];
    for await (const page of client.items.list({ sort: '-updated_at' })) {
      front = page.items.map((o) => o.id);
      break;
    }
    expect(front).toHaveLength(PER_PAGE);
    const asked = [front[3]!, front[0]!];
    let found = new Map<number, unknown>();
    expect(await pagesRead(async () => (found = await confirmThroughList(ctx(), 'item', asked)))).toBe(1);
    expect([...found.keys()].sort()).toEqual([...asked].sort());
    expect((found.get(front[0]!) as { externalId: string }).externalId).toMatch(/^ctl-/);
  });

  it('gives up on offers not seen once it has read 4 per offer asked for plus 200', async () => {
    // Two offers asked for: 208 offers read, 52 pages of 4; the 220 items would take 55.
    let found = new Map<number, unknown>();
    expect(await pagesRead(async () => (found = await confirmThroughList(ctx(), 'item', [-1, -2])))).toBe(52);
    expect(found.size).toBe(0);
  });

  it('reads to the end of a list shorter than its bound, and returns what it saw of the offers asked for', async () => {
    const asked = [ids[0]!, ids[ITEMS - 1]!, -1, -2, -3, -4, -5, -6];
    let found = new Map<number, unknown>();
    expect(await pagesRead(async () => (found = await confirmThroughList(ctx(), 'item', asked)))).toBe(
      ITEMS / PER_PAGE,
    );
    expect([...found.keys()].sort((a, b) => a - b)).toEqual([ids[0], ids[ITEMS - 1]]);
  });

  it('asks for the list sorted by -updated_at, whatever the marketplace sorts by default', async () => {
    const asked: unknown[] = [];
    const items = client.items;
    const observed = {
      ...client,
      items: {
        ...items,
        list: (opts?: ListOptions) => {
          asked.push(opts);
          return items.list(opts);
        },
      },
    } as MarketplaceClient;
    await confirmThroughList({ client: observed } as unknown as ExecutionContext, 'item', [ids[0]!]);
    expect(asked).toEqual([{ sort: '-updated_at' }]);
  });

  it('reads the list of the kind asked for', async () => {
    const found = await confirmThroughList(ctx(), 'account', [accountId]);
    expect(found.get(accountId)?.externalId).toMatch(/^ctl-acc-/);
  });
});
