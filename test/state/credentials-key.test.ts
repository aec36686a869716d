// The HMAC key of offer credentials: 32 random bytes in a 0600 file beside the state db, made once and read back
// by every later run (and by a process that made it at the same moment); one key per process for an in-memory
// state; for PostgreSQL, derived from the API key.
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialsKeyPath, deriveCredentialsKey, loadCredentialsKey } from '../../src/state/credentials-key.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'offersync-hmac-'));
  dirs.push(d);
  return d;
};
const hex = (k: Uint8Array) => Buffer.from(k).toString('hex');

describe('credentials key', () => {
  it('makes a 32-byte key in a 0600 file beside the state db, and reads the same key back', () => {
    const dir = tmp();
    const state = join(dir, 'nested', 'state.db');
    expect(credentialsKeyPath(state)).toBe(`${state}.hmac-key`);
    const key = loadCredentialsKey(state);
    expect(key).toHaveLength(32);
    const file = `${state}.hmac-key`;
    expect(readFileSync(file, 'utf8')).toBe(`${hex(key)}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
    expect(hex(loadCredentialsKey(state))).toBe(hex(key));
  });

  it('reads a key another process wrote, whitespace trimmed', () => {
    const dir = tmp();
    const state = join(dir, 'state.db');
    writeFileSync(`${state}.hmac-key`, `  ${'ab'.repeat(32)}\n\n`);
    expect(hex(loadCredentialsKey(state))).toBe('ab'.repeat(32));
  });

  it('a key file that does not hold a whole key stops with its name and what to do, never a short key', () => {
    const dir = tmp();
    const state = join(dir, 'state.db');
    for (const bad of ['', 'ab'.repeat(20), `${'ab'.repeat(32)}zz`, `zz${'ab'.repeat(32)}`]) {
      writeFileSync(`${state}.hmac-key`, bad);
      expect(() => loadCredentialsKey(state)).toThrow(
        `${state}.hmac-key does not hold a credentials key (64 hex digits): delete it and offersync makes a new ` +
          "one (each account's credentials are then sent again once)",
      );
    }
  });

  it('leaves no temporary file beside the key', () => {
    const dir = tmp();
    loadCredentialsKey(join(dir, 'state.db'));
    expect(readdirSync(dir)).toEqual(['state.db.hmac-key']);
  });

  it('a dangling link where the key file goes is replaced by a whole key file, the key it holds returned', () => {
    const dir = tmp();
    const state = join(dir, 'state.db');
    symlinkSync(join(dir, 'nowhere'), `${state}.hmac-key`);
    const key = loadCredentialsKey(state);
    expect(lstatSync(`${state}.hmac-key`).isFile()).toBe(true);
    expect(readFileSync(`${state}.hmac-key`, 'utf8')).toBe(`${hex(key)}\n`);
  });

  it('fails when the key file cannot be written', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'file'), '');
    expect(() => loadCredentialsKey(join(dir, 'file', 'state.db'))).toThrow(/ENOTDIR|EEXIST/);
  });

  it('keeps one key per process for an in-memory state db, in no file', () => {
    expect(credentialsKeyPath(':memory:')).toBeNull();
    const key = loadCredentialsKey(':memory:');
    expect(key).toHaveLength(32);
    expect(hex(loadCredentialsKey(':memory:'))).toBe(hex(key));
  });

  it('derives the PostgreSQL key from the API key, the same on every replica', () => {
    const a = deriveCredentialsKey('sk-one');
    expect(a).toHaveLength(32);
    expect(hex(deriveCredentialsKey('sk-one'))).toBe(hex(a));
    expect(hex(deriveCredentialsKey('sk-two'))).not.toBe(hex(a));
    // Pinned: another derivation would make every replica send every account's credentials again.
    expect(hex(a)).toBe('163a421a4aaad77bd794564b84cefc4b8069a3083a71992dbcd30e61e983bfe8');
  });
});
