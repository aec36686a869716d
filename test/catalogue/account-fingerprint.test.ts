// The login fingerprint: one account whatever way a sheet writes its login, two accounts never the same, the
// login never recoverable from it, and kept apart from the credentials HMAC of the same key.
import { describe, expect, it } from 'vitest';
import { accountFingerprint, normalisedLogin } from '../../src/catalogue/account-fingerprint.ts';
import { credentialsHmac } from '../../src/catalogue/hash.ts';

const KEY = 'test-key';

describe('login fingerprint', () => {
  it.each([
    [{ login: 'Hero.Main' }, 'hero.main'],
    [{ login: '  hero . main \t' }, 'hero.main'],
    [{ login: 'ＨＥＲＯ' }, 'hero'],
    [{ login: '', email_login: 'Me@Mail.Test ' }, 'me@mail.test'],
    [{ email_login: 'me@mail.test', login: 'Game' }, 'game'],
    [{ password: 'only' }, undefined],
    [{ login: '   ' }, undefined],
  ] as const)('normalises %j to %j', (credentials, expected) => {
    expect(normalisedLogin(credentials)).toBe(expected);
  });

  it('is one value for one account written in other case and spacing, and another for another account', () => {
    const a = accountFingerprint(KEY, { login: 'Hero.Main', password: 'x' });
    expect(accountFingerprint(KEY, { login: ' hero.main ', password: 'other' })).toBe(a);
    expect(accountFingerprint(KEY, { login: 'hero.main2' })).not.toBe(a);
    expect(accountFingerprint('another-key', { login: 'Hero.Main' })).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toContain('hero');
  });

  it('never equals the credentials HMAC of the same key and login', () => {
    expect(accountFingerprint(KEY, { login: 'l' })).not.toBe(credentialsHmac(KEY, { login: 'l' }));
  });
});
