// Ranks a marketplace maps into an account's parameters, read back as the document's flat fields, and credentials
// an answer carries: sealed, never kept.
import { describe, expect, it } from 'vitest';
import { ranksFromParameters, sellerParameters } from '../../src/marketplace/account-parameters.ts';
import { decodeOffer } from '../../src/marketplace/decode.ts';

describe('ranksFromParameters', () => {
  const cases: readonly [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'ids: division ids count up (3 is II)',
      { rank_id: 4, division_id: 3, lp: 0 },
      { current_rank: 'gold', current_division: 'II', current_lp: 0 },
    ],
    [
      'the division as text wins over its id',
      { rank_id: '5', division: 'iv', division_id: 9 },
      { current_rank: 'platinum', current_division: 'IV' },
    ],
    ['a label only', { rank_label: 'Diamond I' }, { current_rank: 'diamond', current_division: 'I' }],
    [
      'master has no division',
      { rank_id: 8, rank_label: 'Master', lp: 120 },
      { current_rank: 'master', current_lp: 120 },
    ],
    [
      'flex and previous',
      { flex_rank_id: 3, flex_division_id: 4, previous_rank_label: 'Grandmaster', previous_lp: 9 },
      { flex_rank: 'silver', flex_division: 'I', previous_rank: 'grandmaster', previous_lp: 9 },
    ],
    ['unranked (0) has no name: left out', { rank_id: 0 }, {}],
  ];
  for (const [name, params, flat] of cases) it(name, () => expect(ranksFromParameters(params)).toEqual(flat));

  it('keeps what the seller sent and drops what the server added', () => {
    expect(sellerParameters({ rank: 'gold II', blue_essence: 5, rank_id: 4, division_id: 3, flex_lp: 2 })).toEqual({
      rank: 'gold II',
      blue_essence: 5,
    });
  });
});

describe('decodeOffer of a real account', () => {
  const answer = {
    id: 7,
    external_id: 'acc-7',
    game: { slug: 'lol', name: 'LOL' },
    riot_points: '1350',
    parameters: { rank_id: 4, division_id: 3, division: 'II', rank_label: 'Gold II', blue_essence: 10 },
    credentials: { login: 'user', password: 'secret-pw', email_login: null },
    image_urls: ['/storage/gallery/1-a.png'],
  };

  it('reads the flat ranks and game_points, and keeps the seller parameters', () => {
    const o = decodeOffer('accounts', answer);
    expect(o.fields).toMatchObject({
      game: 'lol',
      current_rank: 'gold',
      current_division: 'II',
      game_points: 1350,
      parameters: { blue_essence: 10 },
    });
  });

  it('seals the credentials it is given a seal for, and keeps none of them', () => {
    const seen: unknown[] = [];
    const o = decodeOffer('accounts', answer, false, {
      sealCredentials: (c) => {
        seen.push(c);
        return 'hmac-of-them';
      },
    });
    expect(seen).toEqual([{ login: 'user', password: 'secret-pw' }]);
    expect(o.credentialsHmac).toBe('hmac-of-them');
    expect(JSON.stringify(o)).not.toContain('secret-pw');
    expect(JSON.stringify(decodeOffer('accounts', answer))).not.toContain('secret-pw');
  });
});
