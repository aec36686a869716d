// The real marketplace's accounts (representation.realAccounts, accountsDuplicateExternalId): ranks inside
// parameters as the server maps them, credentials and gallery urls returned, no image_ids; and external_ids that
// are not unique.
import { describe, expect, it } from 'vitest';
import { REAL_SERVER_SWITCHES_ACCOUNTS } from '../../src/sandbox/sandbox-options.ts';
import { account, PNG, upload, useSandbox } from './support.ts';

const { sb, api } = useSandbox();

describe('representation.realAccounts', () => {
  it('answers game as {slug, name}, ranks in parameters, credentials and image_urls, no flat ranks', async () => {
    sb().reset();
    sb().setRepresentation({ realAccounts: true });
    const img = await upload(sb(), PNG, { name: 'a.png' });
    const id = img.body.data.id as number;
    const created = await api(
      'POST',
      '/api/v1/accounts',
      account(1, {
        game: 'lol',
        current_rank: 'gold',
        current_division: 'II',
        current_lp: 40,
        flex_rank: 'master',
        flex_division: 'I',
        flex_lp: 120,
        level: 30,
        credentials: { login: 'l1', password: 'p1' },
        image_ids: [id],
      }),
    );
    expect(created.status).toBe(200);
    const got = (await api('GET', `/api/v1/accounts/${created.body.id}`)).body;
    expect(got.game).toEqual({ slug: 'lol', name: 'LOL' });
    // Gold II on lol: LP dropped below master; master: its division dropped.
    expect(got.parameters).toMatchObject({ rank_id: 4, division_id: 3, division: 'II', rank_label: 'Gold II' });
    expect(got.parameters.lp).toBeUndefined();
    expect(got.parameters).toMatchObject({ flex_rank_label: 'Master', flex_rank_id: 8, flex_lp: 120 });
    expect(got.parameters.flex_division_id).toBeUndefined();
    expect(got.credentials).toEqual({ login: 'l1', password: 'p1' });
    expect(got.level).toBe(30);
    for (const f of ['image_ids', 'current_rank', 'current_division', 'current_lp', 'platform_account_id'])
      expect(got, f).not.toHaveProperty(f);
    expect(got.image_urls).toHaveLength(1);
    const bytes = await fetch(new URL(got.image_urls[0], sb().url)).then(
      async (r) => new Uint8Array(await r.arrayBuffer()),
    );
    expect(Buffer.from(bytes).equals(Buffer.from(PNG))).toBe(true);
    const listed = (await api('GET', '/api/v1/accounts')).body.data[0];
    expect(listed.parameters.rank_id).toBe(4);
  });

  it('is off by default: the document flat fields and image_ids, no credentials', async () => {
    sb().reset();
    const created = await api(
      'POST',
      '/api/v1/accounts',
      account(2, { current_rank: 'gold', credentials: { login: 'x' } }),
    );
    expect(created.body.current_rank).toBe('gold');
    expect(created.body).toHaveProperty('image_ids');
    expect(created.body).not.toHaveProperty('credentials');
    expect(created.body).not.toHaveProperty('parameters');
  });
});

describe('representation.accountsDuplicateExternalId', () => {
  it('accepts a second create with the same external_id (a duplicate), 409 when off', async () => {
    sb().reset();
    expect((await api('POST', '/api/v1/accounts', account(3))).status).toBe(200);
    expect((await api('POST', '/api/v1/accounts', account(3))).status).toBe(409);
    sb().setRepresentation(REAL_SERVER_SWITCHES_ACCOUNTS.representation);
    expect((await api('POST', '/api/v1/accounts', account(3))).status).toBe(200);
    const list = (await api('GET', '/api/v1/accounts?filter[external_id]=acc-3')).body.data;
    expect(list.map((a: { id: number }) => a.id)).toEqual([2, 1]);
  });
});
