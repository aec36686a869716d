import { beforeAll, describe, expect, it } from 'vitest';
import { account, useSandbox } from './support.ts';

const { sb, api } = useSandbox({ defaultPerPage: 15, maxPerPage: 50 });
const N = 120;

beforeAll(async () => {
  for (let i = 1; i <= N; i++) {
    const r = await api('POST', '/api/v1/accounts', account(String(i).padStart(3, '0'), { price: 1000 + (i % 7) }));
    expect(r.status).toBe(200);
  }
});

/** Follows links.next from the first page; bounded. */
async function walk(query: string): Promise<{ ids: number[]; pages: number }> {
  let url: string | null = `${sb().url}/api/v1/accounts?${query}`;
  const ids: number[] = [];
  let pages = 0;
  while (url !== null && pages < 200) {
    const res: Response = await fetch(url, { headers: { authorization: 'Bearer test-key' } });
    const body: any = await res.json();
    ids.push(...body.data.map((a: any) => a.id));
    url = body.links.next;
    pages++;
  }
  return { ids, pages };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('list paging', () => {
  it('returns each of 120 offers exactly once, in order, both directions', async () => {
    const up = await walk('sort=id&per_page=7');
    expect(up.ids).toEqual(range(N));
    expect(up.pages).toBe(Math.ceil(N / 7));
    const down = await walk('sort=-id&per_page=7');
    expect(down.ids).toEqual(range(N).reverse());
  });

  it('defaults to -updated_at and 15 per page', async () => {
    const r = await api('GET', '/api/v1/accounts');
    expect(r.body.data.map((a: any) => a.id)).toEqual(range(N).reverse().slice(0, 15));
    expect(r.body.meta).toEqual({ current_page: 1, last_page: 8, per_page: 15, total: N, from: 1, to: 15 });
    const all = await walk('per_page=11');
    expect(all.ids).toEqual(range(N).reverse());
  });

  it('sorts by another field with id breaking ties, the descending order being the exact reverse', async () => {
    const asc = await walk('sort=price&per_page=13');
    const desc = await walk('sort=-price&per_page=13');
    expect(new Set(asc.ids).size).toBe(N);
    expect(desc.ids).toEqual([...asc.ids].reverse());
    const expected = range(N).sort((a, b) => (a % 7) - (b % 7) || a - b);
    expect(asc.ids).toEqual(expected);
  });

  it('meta and links on a middle and the last page keep the other query parameters', async () => {
    const r = await api('GET', '/api/v1/accounts?sort=id&per_page=50&page=3');
    expect(r.body.meta).toEqual({ current_page: 3, last_page: 3, per_page: 50, total: N, from: 101, to: 120 });
    expect(r.body.links.next).toBeNull();
    const prev = new URL(r.body.links.prev);
    expect(Object.fromEntries(prev.searchParams)).toEqual({ sort: 'id', per_page: '50', page: '2' });
    expect(new URL(r.body.links.first).searchParams.get('page')).toBe('1');
    expect(new URL(r.body.links.last).searchParams.get('page')).toBe('3');
  });

  it('clamps per_page to the maximum and answers an empty page past the end', async () => {
    const r = await api('GET', '/api/v1/accounts?per_page=1000');
    expect(r.body.meta.per_page).toBe(50);
    expect(r.body.data).toHaveLength(50);
    const past = await api('GET', '/api/v1/accounts?page=99');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta).toMatchObject({ from: null, to: null, total: N });
    expect(past.body.links.next).toBeNull();
  });

  it('422 for a bad page, per_page or sort field', async () => {
    for (const q of ['page=0', 'page=x', 'per_page=-1', 'sort=password', 'sort=-credentials']) {
      const r = await api('GET', `/api/v1/accounts?${q}`);
      expect(r.status, q).toBe(422);
      expect(typeof r.body.message).toBe('string');
    }
  });

  it('filter[external_id] matches exactly; ignored when disabled', async () => {
    const r = await api('GET', `/api/v1/accounts?${encodeURIComponent('filter[external_id]')}=acc-042`);
    expect(r.body.data.map((a: any) => a.id)).toEqual([42]);
    expect((await api('GET', '/api/v1/accounts?filter[external_id]=acc-04')).body.data).toEqual([]);
    sb().setFaults({ disabled: ['filterExternalId'] });
    try {
      expect((await api('GET', '/api/v1/accounts?filter[external_id]=acc-042')).body.meta.total).toBe(N);
    } finally {
      sb().setFaults({});
    }
  });

  it('lists archived offers with their status', async () => {
    await api('DELETE', '/api/v1/accounts/acc-001');
    const r = await api('GET', '/api/v1/accounts?filter[external_id]=acc-001');
    expect(r.body.data[0].status).toBe('archived');
    // The archive was a write: the offer is now first by -updated_at.
    expect((await api('GET', '/api/v1/accounts?per_page=1')).body.data[0].external_id).toBe('acc-001');
  });
});
