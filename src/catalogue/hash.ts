// Content hash of an offer: sha256 over canonical JSON (sorted keys, fixed order of the parts), so that key order and
// formatting of the file never change it. Credentials enter only as a keyed HMAC, so they can be compared, never
// stored.
import { createHash, hash as oneShotHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(k)}:${canonicalJson(v)}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * The value with its objects' keys in sorted order and undefined members left out, so that JSON.stringify of it is
 * canonical. Objects are copied; an array is copied only when it holds an object. Fast when the keys come sorted
 * already (the normalisers write them so): 100k offers a load.
 */
export function sortKeys<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (const x of value) if (x !== null && typeof x === 'object') return value.map(sortKeys) as T;
    return value;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) {
      keys.sort();
      break;
    }
  }
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = obj[k];
    if (v !== undefined) out[k] = typeof v === 'object' && v !== null ? sortKeys(v) : v;
  }
  return out as T;
}

export function sha256Hex(data: string | Uint8Array): string {
  // crypto.hash (one shot) costs half of createHash().update().digest() for small inputs: 100k offers.
  return typeof data === 'string'
    ? oneShotHash('sha256', data, 'hex')
    : createHash('sha256').update(data).digest('hex');
}

const BLOCK = 64;

/**
 * HMAC-SHA256 (RFC 2104) with the padded keys computed once: createHmac per offer was the loader's
 * most expensive call. Equal to createHmac('sha256', key).update(msg).digest('hex').
 */
export class Hmac256 {
  private readonly ipad: Buffer;
  private readonly opad: Buffer;

  constructor(key: string | Uint8Array) {
    let k = Buffer.from(typeof key === 'string' ? Buffer.from(key, 'utf8') : key);
    if (k.length > BLOCK) k = createHash('sha256').update(k).digest();
    this.ipad = Buffer.alloc(BLOCK, 0x36);
    this.opad = Buffer.alloc(BLOCK, 0x5c);
    for (let i = 0; i < k.length; i++) {
      this.ipad[i]! ^= k[i]!;
      this.opad[i]! ^= k[i]!;
    }
  }

  hex(message: string): string {
    const inner = oneShotHash('sha256', Buffer.concat([this.ipad, Buffer.from(message, 'utf8')]), 'buffer');
    return oneShotHash('sha256', Buffer.concat([this.opad, inner]), 'hex');
  }
}

/** HMAC of the canonical JSON of an offer's credentials. */
export function credentialsHmac(key: string | Uint8Array | Hmac256, credentials: object): string {
  const h = key instanceof Hmac256 ? key : new Hmac256(key);
  return h.hex(JSON.stringify(sortKeys(credentials)));
}

/**
 * sha256 of [kind, externalId, fields, image sha256s, credentials HMAC]. `fields` must already have
 * sorted keys (sortKeys): the loader stores them that way, which also makes this fast at 100k offers.
 */
export function offerHash(input: {
  kind: string;
  externalId: string;
  sortedFields: object;
  imageSha256s: readonly string[];
  credentialsHmac: string | undefined;
}): string {
  return sha256Hex(
    JSON.stringify([
      input.kind,
      input.externalId,
      input.sortedFields,
      input.imageSha256s,
      input.credentialsHmac ?? null,
    ]),
  );
}
