// Contract: paging over 120 offers with small pages returns each exactly once, in the requested order.
import { beforeAll, describe, expect, it } from 'vitest';
import { collect, ext, useContract } from './support/contract.ts';
import { accountBody } from '../support/offers.ts';

const ids: number[] = [];

const { sandbox, client } = useContract();

beforeAll(async () => {
  for (let i = 0; i < 120; i++) ids.push((await client.accounts.create(accountBody(ext('page')))).id);
});
describe('paging', () => {
  it.each([
    ['id', (a: number, b: number) => a - b],
    ['-id', (a: number, b: number) => b - a],
  ])('sort=%s with per_page 7: every offer once, in order', async (sort, order) => {
    sandbox.resetCounters();
    const pages: number[] = [];
    const seen: number[] = [];
    for await (const page of client.accounts.list({ sort, perPage: 7 })) {
      pages.push(page.page);
      seen.push(...page.items.map((o) => o.id));
      expect(page.items.length).toBeLessThanOrEqual(7);
    }
    expect(seen).toEqual([...ids].sort(order));
    expect(new Set(seen).size).toBe(120);
    expect(pages).toEqual(Array.from({ length: 18 }, (_, i) => i + 1)); // ceil(120 / 7)
    expect(sandbox.counters().total).toBe(18);
  });

  it('hasMore is false only on the last page', async () => {
    const flags: boolean[] = [];
    for await (const page of client.accounts.list({ sort: 'id', perPage: 50 })) flags.push(page.hasMore);
    expect(flags).toEqual([true, true, false]);
  });

  it('sorts by updated_at descending', async () => {
    const first = ids[0]!;
    await new Promise((r) => setTimeout(r, 1100)); // second-granular timestamps on some representations
    await client.accounts.update({ id: first }, { price: 4242 });
    const [top] = (await collect(client.accounts.list({ sort: '-updated_at', perPage: 7 }))).slice(0, 1);
    expect(top?.id).toBe(first);
  });

  it('a walk stopped early leaves nothing behind', async () => {
    for await (const page of client.accounts.list({ sort: 'id', perPage: 7 })) {
      expect(page.page).toBe(1);
      break;
    }
    await expect(client.accounts.get({ id: ids[1]! })).resolves.toMatchObject({ id: ids[1] });
  });
});
