import { describe, expect, it } from 'vitest';
import { account, useSandbox } from './support.ts';

const { sb, api } = useSandbox({ maxJsonBytes: 2048 });

describe('bad input', () => {
  it('answers malformed JSON with 400 and the error object', async () => {
    for (const raw of ['{"external_id": ', 'not json', '{"a":1}}']) {
      const r = await api('POST', '/api/v1/accounts', undefined, {
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(r.status).toBe(400);
      expect(typeof r.body.message).toBe('string');
    }
  });

  it('answers a JSON body that is not an object with 422', async () => {
    for (const body of [[account(1)], 'text', 42, null]) {
      const r = await api('POST', '/api/v1/accounts', body);
      expect(r.status).toBe(422);
      expect(typeof r.body.message).toBe('string');
    }
  });

  it('answers a body holding a key that names a prototype with 400, and stores nothing', async () => {
    for (const raw of ['{"external_id":"p-1","__proto__":{"status":"archived"}}', '{"parameters":{"constructor":1}}']) {
      const r = await api('POST', '/api/v1/accounts', undefined, {
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/which names a prototype/);
    }
    expect(Object.hasOwn(Object.prototype, 'status')).toBe(false);
  });

  it('answers a body over maxJsonBytes with 413, and keeps serving', async () => {
    const r = await api('POST', '/api/v1/accounts', account(1, { description: 'x'.repeat(5000) }));
    expect(r.status).toBe(413);
    expect(typeof r.body.message).toBe('string');
    const far = await api('POST', '/api/v1/top-ups/bulk-update', { offers: [{ external_id: 'x'.repeat(200_000) }] });
    expect(far.status).toBe(413);
    expect((await api('POST', '/api/v1/accounts', account(2))).status).toBe(200);
  });

  it('answers a non-JSON content type with 415', async () => {
    const r = await api('POST', '/api/v1/accounts', undefined, {
      raw: 'external_id=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(415);
    expect(typeof r.body.message).toBe('string');
  });

  it('answers unknown routes with 404 and wrong methods with 405, both with the error object', async () => {
    const a = await api('GET', '/api/v1/nothing');
    expect(a.status).toBe(404);
    expect(typeof a.body.message).toBe('string');
    const b = await api('PUT', '/api/v1/accounts/1', {});
    expect(b.status).toBe(405);
    expect(b.headers.get('allow')).toContain('PATCH');
    expect((await api('GET', '/api/v1/accounts/bulk-remove')).status).toBe(404); // an identifier, not the bulk route
    expect((await api('GET', '/api/v1/accounts/%E0%A4%A')).status).toBe(404);
  });

  it('survives odd identifiers and huge numbers', async () => {
    await api('POST', '/api/v1/accounts', account('odd', { external_id: 'a b/c?d' }));
    // URL-encoded identifiers are decoded.
    const odd = await api('GET', `/api/v1/accounts/${encodeURIComponent('a b/c?d')}`);
    expect(odd.body.external_id).toBe('a b/c?d');
    expect((await api('GET', '/api/v1/accounts/99999999999999999999999')).status).toBe(404);
    expect((await api('POST', '/api/v1/accounts', account(3, { price: 1e300 }))).status).toBe(422);
    expect(sb().counters().byRoute['POST /api/v1/accounts']).toBeDefined();
  });
});
