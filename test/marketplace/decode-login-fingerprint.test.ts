// Credentials a server returns with an account become its login fingerprint (and their seal), never kept: the
// decoded offer holds neither the login nor the password.
import { describe, expect, it } from 'vitest';
import { accountFingerprint } from '../../src/catalogue/account-fingerprint.ts';
import { decodeOffer } from '../../src/marketplace/decode.ts';

const KEY = 'test-key';
const answer = {
  id: 7,
  external_id: 'web-1',
  status: 'listed',
  title: 'Made by hand',
  credentials: { login: 'Shared.Login', password: 'typed-on-the-site' },
};

describe('decoding returned credentials', () => {
  it('gives the login fingerprint when asked, and keeps no credential', () => {
    const offer = decodeOffer('accounts', answer, false, { fingerprintLogin: (c) => accountFingerprint(KEY, c) });
    expect(offer.loginFingerprint).toBe(accountFingerprint(KEY, { login: 'shared.login' }));
    expect(offer.credentialsHmac).toBeUndefined();
    const kept = JSON.stringify(offer).toLowerCase();
    expect(kept).not.toContain('shared.login');
    expect(kept).not.toContain('typed-on-the-site');
  });

  it('gives none without the option, or for an answer without credentials', () => {
    expect(decodeOffer('accounts', answer).loginFingerprint).toBeUndefined();
    const { credentials: _, ...bare } = answer;
    const opts = { fingerprintLogin: (c: Readonly<Record<string, string>>) => accountFingerprint(KEY, c) };
    expect(decodeOffer('accounts', bare, false, opts).loginFingerprint).toBeUndefined();
  });
});
