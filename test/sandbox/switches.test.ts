// Sandbox switches: creates that honour Idempotency-Key, bulk answers with counts only, and a shop that
// answers HTML at GET /{kind}/{external_id}.
import { describe, expect, it } from 'vitest';
import { account, useSandbox } from './support.ts';

const { sb, api } = useSandbox();

describe('Idempotency-Key on creates (representation.idempotencyKeys)', () => {
  it('a repeat with the same key and body gets the first answer and makes no second offer', async () => {
    sb().reset();
    sb().setRepresentation({ idempotencyKeys: true });
    const headers = { 'idempotency-key': 'k-1' };
    const first = await api('POST', '/api/v1/accounts', account(1), { headers });
    expect(first.status).toBe(200);
    // The same create again: without the key this would be a 409 (external_id taken).
    const again = await api('POST', '/api/v1/accounts', account(1), { headers });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(sb().dump().accounts).toHaveLength(1);
    const other = await api('POST', '/api/v1/accounts', account(1, { price: 5 }), { headers });
    expect(other.status).toBe(422);
    expect(other.body.message).toMatch(/Idempotency-Key/);
  });

  it('keeps the answer of a create whose response was lost: the retry is answered without a second offer', async () => {
    sb().reset();
    sb().setRepresentation({ idempotencyKeys: true });
    sb().setFaults({ lostResponseRate: 1, seed: 3 });
    const headers = { 'idempotency-key': 'lost-1' };
    const lost = await api('POST', '/api/v1/accounts', account(2), { headers }).catch(() => null);
    expect(lost === null || lost.status === 502).toBe(true);
    sb().setFaults({});
    const retry = await api('POST', '/api/v1/accounts', account(2), { headers });
    expect(retry.status).toBe(200);
    expect(retry.body.external_id).toBe('acc-2');
    expect(sb().dump().accounts).toHaveLength(1);
  });

  it('is ignored when the switch is off (the default)', async () => {
    sb().reset();
    const headers = { 'idempotency-key': 'k-2' };
    expect((await api('POST', '/api/v1/accounts', account(3), { headers })).status).toBe(200);
    expect((await api('POST', '/api/v1/accounts', account(3), { headers })).status).toBe(409);
  });
});

describe('bulk answers with counts only (representation.bulkCountsOnly)', () => {
  it('top-up bulk-update says how many, not which', async () => {
    sb().reset();
    sb().setRepresentation({ bulkCountsOnly: true });
    await api('POST', '/api/v1/top-ups', { external_id: 'tu-1', price: 10 });
    const res = await api('POST', '/api/v1/top-ups/bulk-update', {
      offers: [
        { external_id: 'tu-1', price: 11 },
        { external_id: 'tu-missing', price: 1 },
      ],
    });
    expect(res.body).toEqual({ success: true, updated: 1, not_found: 1, invalid: 0 });
  });
});

describe('an HTML page at GET /{kind}/{external_id} (representation.externalIdPathHtml)', () => {
  it('answers 200 text/html for an external_id, JSON for a numeric id', async () => {
    sb().reset();
    sb().setRepresentation({ externalIdPathHtml: true });
    const created = await api('POST', '/api/v1/items', { external_id: 'it-1', title: 'x', price: 1 });
    const page = await api('GET', '/api/v1/items/it-1');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toMatch(/<html/);
    const byId = await api('GET', `/api/v1/items/${created.body.id}`);
    expect(byId.body.external_id).toBe('it-1');
  });
});
