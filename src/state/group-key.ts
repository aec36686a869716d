// The fingerprint key of a seller group: every seller of the group fingerprints a login with it, so that one
// account is one fingerprint across their shops (docs/architecture.md, Seller groups). A seller on its own keeps
// its credentials key for both. sqlite: a 0600 file beside the shared state.path, as the credentials key is.
// PostgreSQL: replicas on many machines share the database but no disk, and the sellers of a group have no
// secret in common, so the key is kept in the state db, the first replica's random key winning.
import { randomBytes } from 'node:crypto';
import { loadKeyFile } from './credentials-key.ts';

/** Where a group's key is: its file (sqlite), else the shared meta of the state db. */
export interface GroupKeyPlace {
  readonly name: string;
  readonly keyPath: string | null;
}

/** Writes `value` as the shared value of `key` unless one is there, and answers the one there. */
export type ClaimSharedMeta = (key: string, value: string) => Promise<string>;

const memoryKeys = new Map<string, Uint8Array>();

export async function loadGroupKey(group: GroupKeyPlace, claim: ClaimSharedMeta | undefined): Promise<Uint8Array> {
  if (group.keyPath !== null) return loadKeyFile(group.keyPath);
  if (claim) {
    const hex = await claim(`group.${group.name}.fingerprint-key`, randomBytes(32).toString('hex'));
    if (/^[0-9a-f]{64}$/i.test(hex)) return Buffer.from(hex, 'hex');
    throw new Error(
      `the state db's fingerprint key of seller group '${group.name}' is damaged (not 64 hex digits): delete the ` +
        `seller_meta row 'shared.group.${group.name}.fingerprint-key' and offersync makes a new one`,
    );
  }
  // A state db in memory: no other process shares it.
  const known = memoryKeys.get(group.name) ?? randomBytes(32);
  memoryKeys.set(group.name, known);
  return known;
}
