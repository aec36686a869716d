// The scrubber: every form of a secret blanked (as written, JSON-escaped, \uXXXX, URL-encoded), short ones as
// whole tokens only.
import { describe, expect, it } from 'vitest';
import { errorMessage, REDACTED, registerSecret, scrubSecrets, secretForms } from '../../src/log/scrubber.ts';

const R = REDACTED;

describe('scrubSecrets', () => {
  it.each([
    ['as written', 'hunter2!', 'bad password hunter2!.', `bad password ${R}.`],
    ['a quote, JSON-escaped', 'pa"ss', '{"password":"pa\\"ss"}', `{"password":"${R}"}`],
    ['a backslash, JSON-escaped', 'c:\\x', '{"password":"c:\\\\x"}', `{"password":"${R}"}`],
    ['non-ASCII as written', 'café12', 'got café12', `got ${R}`],
    ['non-ASCII as \\u00e9', 'café12', '{"p":"caf\\u00e912"}', `{"p":"${R}"}`],
    ['non-ASCII as \\u00E9', 'café12', '{"p":"caf\\u00E912"}', `{"p":"${R}"}`],
    ['a slash as PHP writes it', 'a/b/c', '{"p":"a\\/b\\/c"}', `{"p":"${R}"}`],
    [
      'JSON-escaped twice',
      'pa"ss',
      '{"message":"{\\"p\\": \\"pa\\\\\\"ss\\"}"}',
      `{"message":"{\\"p\\": \\"${R}\\"}"}`,
    ],
    ['URL-encoded', 'a b&c/é', 'login=a%20b%26c%2F%C3%A9 refused', `login=${R} refused`],
    ['form-encoded', 'a b&c', 'login=a+b%26c refused', `login=${R} refused`],
    ['a control character', 'x\ty\u001b', '{"p":"x\\ty\\u001b"}', `{"p":"${R}"}`],
    [
      'a 1-character value, quoted',
      'a',
      'The credentials are invalid: {"password": "a"}',
      `The credentials are invalid: {"password": "${R}"}`,
    ],
    ['a 1-character value, as a token', 'a', 'password=a; login a b', `password=${R}; login ${R} b`],
    ['a 1-character value, never inside a word', 'a', 'a bad password', `${R} bad password`],
    ['a 2-character value, JSON-escaped', 'é"', '{"p":"\\u00e9\\""}', `{"p":"${R}"}`],
    ['a 2-character value, URL-encoded', 'a/', 'p=a%2F&x', `p=${R}&x`],
    ['a 2-character value, not inside a word', 'zq', 'zqx xzq zq', `zqx xzq ${R}`],
    ['every occurrence', 'secret-1', 'secret-1 and "secret-1"', `${R} and "${R}"`],
  ])('%s', (_what, secret, text, expected) => {
    expect(scrubSecrets(text, [secret])).toBe(expected);
  });

  it('leaves text without a secret as it is, and ignores empty and missing values, between words and signs too', () => {
    // Before any secret is registered: no pattern at all, and a text holding the word null is left alone.
    expect(scrubSecrets('nothing to hide: 1 + 1 = 2.', ['', undefined])).toBe('nothing to hide: 1 + 1 = 2.');
    expect(scrubSecrets('password: null')).toBe('password: null');
  });

  it("a secret's regular-expression characters are its own characters, never a pattern", () => {
    const special = 'a.b*c+d?e^f$g(h)i[j]k{1}l|m\\n/o';
    expect(scrubSecrets(`x ${special} y`, [special])).toBe(`x ${R} y`);
    expect(scrubSecrets('aXb', ['a.b'])).toBe('aXb');
    expect(scrubSecrets('x', ['a|'])).toBe('x');
  });

  it('a 3-character value is blanked inside a word too', () => {
    expect(scrubSecrets('xabcx', ['abc'])).toBe(`x${R}x`);
  });

  it('an error as text: its message, or a thrown value as a string, scrubbed', () => {
    expect(errorMessage(new Error('refused pw-err-77'))).toBe('refused pw-err-77');
    registerSecret('pw-err-77');
    expect(errorMessage(new Error('refused pw-err-77'))).toBe(`refused ${R}`);
    expect(errorMessage('pw-err-77 thrown')).toBe(`${R} thrown`);
    expect(errorMessage(42)).toBe('42');
  });

  it('a longer value first: a secret holding another is blanked whole', () => {
    expect(scrubSecrets('abcdef', ['abc', 'abcdef'])).toBe(R);
  });

  it('registered secrets are scrubbed from every text, beside the extra ones', () => {
    registerSecret('api-key-scrubber-1');
    expect(scrubSecrets('x api-key-scrubber-1 y')).toBe(`x ${R} y`);
    expect(scrubSecrets('api-key-scrubber-1 pw-9', ['pw-9'])).toBe(`${R} ${R}`);
  });

  it('the forms of a value', () => {
    expect(secretForms('é/"')).toEqual(
      expect.arrayContaining(['é/"', 'é/\\"', '\\u00e9/\\"', '\\u00E9\\/\\"', '%C3%A9%2F%22', 'é\\\\/\\\\\\"']),
    );
  });
});
