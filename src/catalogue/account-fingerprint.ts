// Which physical game account an offer sells, without keeping its login: a keyed HMAC of the normalised login
// (docs/architecture.md, One game account, one live offer). Two offers with one fingerprint sell one account,
// and the second buyer would get credentials that no longer work.
import type { AccountCredentials } from './desired-offer.ts';
import { Hmac256 } from './hash.ts';

/** Kept apart from the credentials HMAC of the same key: one never equals the other. */
const DOMAIN = 'offersync login fingerprint v1\n';

/**
 * The login as one account is known whatever way a sheet writes it: Unicode-normalised, lower case, without any
 * white space. The game login, else the email login; undefined when the offer carries neither.
 */
export function normalisedLogin(
  credentials: Readonly<Record<string, unknown>> | AccountCredentials,
): string | undefined {
  const c = credentials as Readonly<Record<string, unknown>>;
  for (const field of ['login', 'email_login'] as const) {
    const v = c[field];
    if (typeof v !== 'string') continue;
    const n = v.normalize('NFKC').toLowerCase().replace(/\s+/gu, '');
    if (n !== '') return n;
  }
  return undefined;
}

/** The fingerprint of the account these credentials open, or undefined when they name no login. */
export function accountFingerprint(
  key: string | Uint8Array | Hmac256,
  credentials: Readonly<Record<string, unknown>> | AccountCredentials,
): string | undefined {
  const login = normalisedLogin(credentials);
  if (login === undefined) return undefined;
  const h = key instanceof Hmac256 ? key : new Hmac256(key);
  return h.hex(DOMAIN + login);
}
