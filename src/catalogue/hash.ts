// Content hash of an offer: sha256 over canonical JSON (sorted keys), so that key order and formatting of
// the file never change it. Credentials enter only as a keyed HMAC, so they can be compared, never stored.
import { createHash, createHmac } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + canonicalJson(v);
    first = false;
  }
  return out + '}';
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function credentialsHmac(key: string | Uint8Array, credentials: object): string {
  return createHmac('sha256', key).update(canonicalJson(credentials)).digest('hex');
}

export function offerHash(input: {
  kind: string;
  externalId: string;
  fields: object;
  imageSha256s: readonly string[];
  credentialsHmac: string | undefined;
}): string {
  return sha256Hex(
    canonicalJson({
      kind: input.kind,
      externalId: input.externalId,
      fields: input.fields,
      images: input.imageSha256s,
      credentialsHmac: input.credentialsHmac,
    }),
  );
}
