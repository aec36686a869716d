import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'offersync-config-'));
}

describe('loadConfig', () => {
  it('loads the embedded defaults with absolute paths and no key', () => {
    const c = loadConfig({ env: {}, cwd: '/srv/shop' });
    expect(c.catalogue.dir).toBe('/srv/shop/catalogue');
    expect(c.state.path).toBe('/srv/shop/.offersync/state.db');
    expect(c.defaults.status).toBe('listed');
    expect(c.apiKey).toBe('');
    expect(Object.isFrozen(c.rateLimit)).toBe(true);
  });

  it.each(['__proto__', 'constructor', 'prototype'])(
    "a config file key '%s' is refused at its line and column, and nothing inherits it",
    (key) => {
      const dir = tmp();
      const file = join(dir, 'offersync.yaml');
      writeFileSync(file, `catalogue:\n  dir: ./cat\nrateLimit:\n  ${key}:\n    ratePerSec: 1\n`);
      const load = () => loadConfig({ env: {}, cwd: '/', flags: { config: file } });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(
        `config file ${file}:4:3: '${key}' cannot be a config key name: JavaScript reserves it (__proto__, ` +
          `constructor, prototype) and it is never read; rename or remove it (at rateLimit.${key})`,
      );
      expect(Object.hasOwn(Object.prototype, 'ratePerSec')).toBe(false);
    },
  );

  it('layers file < environment < flags', () => {
    const dir = tmp();
    const file = join(dir, 'offersync.yaml');
    writeFileSync(file, 'baseUrl: https://file.example\ncatalogue:\n  dir: ./cat\nrateLimit:\n  ratePerSec: 9\n');
    const fromFile = loadConfig({ env: {}, cwd: '/', flags: { config: file } });
    expect(fromFile.baseUrl).toBe('https://file.example');
    expect(fromFile.catalogue.dir).toBe(join(dir, 'cat'));
    expect(fromFile.rateLimit.ratePerSec).toBe(9);
    expect(fromFile.rateLimit.burst).toBe(4);
    const fromEnv = loadConfig({
      env: { OFFERSYNC_CONFIG: file, OFFERSYNC_BASE_URL: 'https://env.example' },
      cwd: '/',
    });
    expect(fromEnv.baseUrl).toBe('https://env.example');
    const fromFlag = loadConfig({
      env: { OFFERSYNC_CONFIG: file, OFFERSYNC_BASE_URL: 'https://env.example' },
      cwd: '/',
      flags: { baseUrl: 'https://flag.example' },
    });
    expect(fromFlag.baseUrl).toBe('https://flag.example');
  });

  it('reads the API key from OFFERSYNC_API_KEY or a key file, trimmed', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'key'), 'sk-from-file\n');
    expect(loadConfig({ env: { OFFERSYNC_API_KEY: ' sk-direct ' } }).apiKey).toBe('sk-direct');
    expect(loadConfig({ env: { OFFERSYNC_API_KEY_FILE: join(dir, 'key') } }).apiKey).toBe('sk-from-file');
    expect(() => loadConfig({ env: { OFFERSYNC_API_KEY_FILE: join(dir, 'missing') } })).toThrow(
      /OFFERSYNC_API_KEY_FILE.*cannot be read/,
    );
  });

  it('refuses an API key in the config file, without echoing it', () => {
    const dir = tmp();
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'apiKey: sk-secret-123\n');
    const err = (() => {
      try {
        loadConfig({ env: {}, flags: { config: file } });
      } catch (e) {
        return e as Error;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.message).toMatch(/never read from a config file/);
    expect(err!.message).not.toContain('sk-secret-123');
  });

  it.each([
    [{ rateLimit: { ratePerSec: 0 } }, /'rateLimit.ratePerSec'.*found 0/],
    [{ sync: { prune: 'some' } }, /'sync.prune'.*managed.*all.*none|'sync.prune'/],
    [{ sync: { ownedPattern: '([' } }, /valid regular expression/],
    [{ schedule: { tick: 'every minute' } }, /cron expression/],
    [{ baseUrl: 'ftp://x' }, /'baseUrl'/],
    [{ ratelimit: {} }, /unknown key 'ratelimit'/],
  ])('names the key and the expected form for %j', (overrides, message) => {
    expect(() => loadConfig({ env: {}, overrides })).toThrow(message);
  });

  it('reports a config file that is not a mapping', () => {
    const dir = tmp();
    const file = join(dir, 'c.yaml');
    writeFileSync(file, '- a\n- b\n');
    expect(() => loadConfig({ env: {}, flags: { config: file } })).toThrow(/must be a YAML mapping/);
  });
});
