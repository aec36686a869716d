import { beforeEach, describe, expect, it } from 'vitest';
import { FaultInjector } from '../../src/sandbox/faults.ts';
import { account, useSandbox } from './support.ts';

const { sb, api } = useSandbox();
beforeEach(() => sb().reset());

/** Status of each request, or 'network' when the connection died without an answer. */
async function statuses(n: number, path = '/api/v1/accounts'): Promise<(number | 'network')[]> {
  const out: (number | 'network')[] = [];
  for (let i = 0; i < n; i++) {
    try {
      const res = await fetch(sb().url + path, { headers: { authorization: 'Bearer test-key', connection: 'close' } });
      await res.arrayBuffer();
      out.push(res.status);
    } catch {
      out.push('network');
    }
  }
  return out;
}

describe('fault injection', () => {
  it('chooses the same faults for the same seed', () => {
    const seq = (seed: number) => {
      const f = new FaultInjector({ errorRate: 0.3, dropRate: 0.1, lostResponseRate: 0.2, seed });
      return Array.from({ length: 50 }, () => f.decide());
    };
    expect(seq(7)).toEqual(seq(7));
    expect(seq(7)).not.toEqual(seq(8));
    const decisions = seq(7);
    expect(decisions.some((d) => d.error !== null)).toBe(true);
    expect(decisions.some((d) => d.drop)).toBe(true);
  });

  it('errorRate answers 500/502/503 with the error object, deterministically, before doing anything', async () => {
    sb().setFaults({ errorRate: 0.5, seed: 42 });
    const first = await statuses(30);
    sb().setFaults({ errorRate: 0.5, seed: 42 });
    const second = await statuses(30);
    expect(second).toEqual(first);
    const errors = first.filter((s) => s !== 200);
    expect(errors.length).toBeGreaterThan(5);
    expect(errors.every((s) => s === 500 || s === 502 || s === 503)).toBe(true);
    sb().setFaults({ errorRate: 1, seed: 1 });
    const r = await api('POST', '/api/v1/accounts', account(1));
    expect(r.status).toBeGreaterThanOrEqual(500);
    expect(typeof r.body.message).toBe('string');
    expect(sb().dump().accounts).toHaveLength(0);
  });

  it('dropRate closes the connection without an answer and does nothing', async () => {
    sb().setFaults({ dropRate: 1, seed: 3 });
    expect(await statuses(3)).toEqual(['network', 'network', 'network']);
    const res = await fetch(`${sb().url}/api/v1/accounts`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
      body: JSON.stringify(account(1)),
    }).catch(() => 'network');
    expect(res).toBe('network');
    sb().setFaults({});
    expect(sb().dump().accounts).toHaveLength(0);
    expect(sb().counters().byRoute['GET /api/v1/accounts']).toEqual({ dropped: 3 });
  });

  it('lostResponseRate does the write, then loses the answer (502 or a closed connection)', async () => {
    sb().setFaults({ lostResponseRate: 1, seed: 9 });
    const outcomes: (number | string)[] = [];
    for (let i = 1; i <= 6; i++) {
      const r = await api('POST', '/api/v1/accounts', account(i)).then(
        (a) => a.status,
        () => 'network',
      );
      outcomes.push(r);
    }
    expect(outcomes.every((o) => o === 502 || o === 'network')).toBe(true);
    expect(new Set(outcomes).size).toBe(2); // both ways happen with this seed
    expect((await statuses(2)).every((s) => s === 200)).toBe(true); // reads are never "lost"
    sb().setFaults({});
    expect(
      sb()
        .dump()
        .accounts.map((a) => a.external_id),
    ).toEqual(['acc-1', 'acc-2', 'acc-3', 'acc-4', 'acc-5', 'acc-6']);
    expect((await api('POST', '/api/v1/accounts', account(1))).status).toBe(409); // the retry finds it there
    expect(sb().counters().writes).toBe(6);
  });

  it('latencyMs delays answers', async () => {
    sb().setFaults({ latencyMs: 120 });
    const t0 = performance.now();
    expect((await api('GET', '/api/v1/accounts')).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(100);
  });

  it('disabled routes answer 404, or 405 for accounts.update, with the error object', async () => {
    await api('POST', '/api/v1/accounts', account(1));
    await api('POST', '/api/v1/top-ups', { external_id: 't' });
    sb().setFaults({ disabled: ['accounts.update', 'accounts.bulkRemove', 'topUps.bulkUpdate'] });
    const u = await api('PATCH', '/api/v1/accounts/1', { title: 'x' });
    expect(u.status).toBe(405);
    expect(typeof u.body.message).toBe('string');
    expect((await api('POST', '/api/v1/accounts/bulk-remove', { ids: [1] })).status).toBe(404);
    expect((await api('POST', '/api/v1/top-ups/bulk-update', { offers: [{ external_id: 't' }] })).status).toBe(404);
    expect((await api('PATCH', '/api/v1/top-ups/t', { price: 9 })).status).toBe(200);
    expect(sb().dump().accounts[0]!.status).toBe('listed');
  });

  it('faults never touch the control routes', async () => {
    sb().setFaults({ dropRate: 1, errorRate: 1 });
    const res = await fetch(`${sb().url}/__sandbox/counters`);
    expect(res.status).toBe(200);
  });
});
