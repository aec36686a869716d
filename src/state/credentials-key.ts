// The HMAC key for offer credentials: random, in a 0600 file beside the state db (not inside it), so the
// state can notice a changed password without holding anything that rebuilds it.
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const memoryKey = randomBytes(32);

export function credentialsKeyPath(statePath: string): string | null {
  return statePath === ':memory:' ? null : `${statePath}.hmac-key`;
}

export function loadCredentialsKey(statePath: string): Uint8Array {
  const path = credentialsKeyPath(statePath);
  return path ? loadKeyFile(path) : memoryKey;
}

/** The random key in `path`, made there (0600) when the file does not exist yet. */
export function loadKeyFile(path: string): Uint8Array {
  if (existsSync(path)) return readKey(path);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Written whole to a file of our own, then renamed into place (any filesystem renames atomically; not every one
  // links): a full disk or a crash mid-write leaves no half key file behind. Of two processes making it at the
  // same moment the last rename wins, and each uses what the file then holds.
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
  return readKey(path);
}

/** The key in `path` when the file is there, never making one (a command that writes nothing). */
export function existingKeyFile(path: string | null): Uint8Array | undefined {
  return path !== null && existsSync(path) ? readKey(path) : undefined;
}

/** The key as its file holds it: 64 hex digits on one line. */
function readKey(path: string): Uint8Array {
  const text = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(text)) {
    throw new Error(
      `${path} does not hold a credentials key (64 hex digits): delete it and offersync makes a new one ` +
        "(each account's credentials are then sent again once)",
    );
  }
  return Buffer.from(text, 'hex');
}

/**
 * For a state in PostgreSQL, shared by replicas on different machines: a key derived from the seller's API
 * key, which every replica has and the database never holds. A new API key changes it (credentials are then
 * sent again once, as after a lost key file).
 */
export function deriveCredentialsKey(apiKey: string): Uint8Array {
  return createHmac('sha256', apiKey).update('offersync credentials hmac key v1').digest();
}
