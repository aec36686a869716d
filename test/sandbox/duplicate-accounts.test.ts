// representation.accountsDuplicateExternalId: the real server keeps no unique key on accounts' external_id, so a
// second create with the same one is accepted and makes a duplicate. Off (the document), it is a 409.
import { beforeEach, describe, expect, it } from 'vitest';
import { account, useSandbox } from './support.ts';

const { sb, api } = useSandbox();
beforeEach(() => sb().reset());

describe('accounts with one external_id', () => {
  it('off: the second create is a 409 and one account is listed', async () => {
    expect((await api('POST', '/api/v1/accounts', account(1))).status).toBe(200);
    expect((await api('POST', '/api/v1/accounts', account(1))).status).toBe(409);
    expect((await api('GET', '/api/v1/accounts')).body.data).toHaveLength(1);
  });

  it('on: the second create succeeds, both are listed; GET and DELETE by id reach each one', async () => {
    sb().setRepresentation({ accountsDuplicateExternalId: true, createStatus201: true });
    const first = await api('POST', '/api/v1/accounts', account(1));
    const second = await api('POST', '/api/v1/accounts', account(1));
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).not.toBe(first.body.id);
    const listed = (await api('GET', '/api/v1/accounts')).body.data as { id: number; external_id: string }[];
    expect(listed.map((a) => a.id).sort()).toEqual([first.body.id, second.body.id].sort());
    expect(new Set(listed.map((a) => a.external_id)).size).toBe(1);
    expect((await api('DELETE', `/api/v1/accounts/${second.body.id}`)).status).toBe(200);
    expect((await api('GET', `/api/v1/accounts/${first.body.id}`)).body.status).toBe('listed');
    expect((await api('GET', `/api/v1/accounts/${second.body.id}`)).body.status).toBe('archived');
  });
});
