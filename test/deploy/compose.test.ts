// The compose files are run from the repository's root: their relative paths resolve there, whatever folder
// a seller names, and the key and base URL come from a git-ignored .env, so going live edits no tracked file.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, 'utf8');

interface Service {
  readonly environment?: Record<string, string>;
  readonly volumes?: readonly string[];
  readonly secrets?: unknown;
}
/** A compose interpolation, `${EXPR}`. */
const ref = (expr: string) => `\${${expr}}`;
const services = (path: string) => (parse(read(path)) as { services: Record<string, Service> }).services;

describe('compose', () => {
  const daemon = services('compose.yaml').offersync!;

  it('sits at the root, so ./ paths and .env are the folder compose is run from', () => {
    expect(existsSync(`${root}deploy/compose.yaml`)).toBe(false);
    const catalogue = daemon.volumes?.find((v) => v.endsWith(':/catalogue:ro'));
    expect(catalogue).toBe(`${ref('OFFERSYNC_CATALOGUE_DIR:-./catalogue')}:/catalogue:ro`);
  });

  it('takes the base URL and the key from the environment (.env), with no tracked default to edit', () => {
    expect(daemon.environment?.OFFERSYNC_BASEURL).toBe(ref('OFFERSYNC_BASEURL:-'));
    expect(daemon.environment?.OFFERSYNC_API_KEY).toBe(ref('OFFERSYNC_API_KEY:-'));
    expect(daemon.secrets).toBeUndefined();
  });

  it('keeps .env out of git and out of the image, and ships an example of it', () => {
    const ignored = execFileSync('git', ['check-ignore', '.env'], { cwd: root, encoding: 'utf8' }).trim();
    expect(ignored).toBe('.env');
    expect(read('.dockerignore')).toMatch(/^\*\*\/\.env$/m);
    const example = read('.env.example');
    for (const key of ['OFFERSYNC_BASEURL', 'OFFERSYNC_API_KEY', 'OFFERSYNC_CATALOGUE_DIR'])
      expect(example).toMatch(new RegExp(`^${key}=`, 'm'));
    expect(example).toMatch(/^OFFERSYNC_API_KEY=$/m);
  });

  it('the sandbox override points the daemon at the sandbox with its key', () => {
    const sandbox = services('compose.sandbox.yaml');
    expect(sandbox.offersync?.environment?.OFFERSYNC_BASEURL).toBe('http://marketplace:8080');
    expect(sandbox.offersync?.environment?.OFFERSYNC_API_KEY).toBe('sandbox-key');
    expect(sandbox.marketplace).toBeDefined();
  });
});
