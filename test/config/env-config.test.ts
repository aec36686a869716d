// Every configuration key from the environment by one rule (OFFERSYNC_ + key path in capitals), so a container
// needs no config file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configKeys, envName } from '../../src/config/env-config.ts';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';

const get = (tree: unknown, key: string): unknown =>
  key.split('.').reduce<unknown>((n, k) => (n as Record<string, unknown> | undefined)?.[k], tree);

describe('configuration from the environment', () => {
  it('names every key by the rule, and each round-trips a value of its own type', () => {
    const defaults = loadConfig({ env: {}, cwd: '/srv' });
    expect(envName('rateLimit.ratePerSec')).toBe('OFFERSYNC_RATELIMIT_RATEPERSEC');
    expect(envName('daemon.healthHost')).toBe('OFFERSYNC_DAEMON_HEALTHHOST');
    const keys = configKeys();
    expect(keys.length).toBeGreaterThan(30);
    for (const { key } of keys) {
      const value = get(defaults, key);
      const text = value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
      const c = loadConfig({ env: { [envName(key)]: text }, cwd: '/srv' });
      expect(get(c, key), `${envName(key)}=${text}`).toEqual(value);
    }
  });

  it('reads numbers, booleans, null and text as each key expects', () => {
    const c = loadConfig({
      cwd: '/srv',
      env: {
        OFFERSYNC_RATELIMIT_BURST: '7',
        OFFERSYNC_INSECURE: 'true',
        OFFERSYNC_BASEURL: 'http://marketplace.internal:8080',
        OFFERSYNC_GUARD_MAXARCHIVE: '40',
        OFFERSYNC_DAEMON_HEALTHHOST: '0.0.0.0',
        OFFERSYNC_DAEMON_HEALTHPORT: '9100',
        OFFERSYNC_LISTS_SORTPARAM: '123',
        OFFERSYNC_SCHEDULE_TICK: '*/2 * * * *',
        OFFERSYNC_CATALOGUE_DIR: 'cat',
      },
    });
    expect(c.rateLimit.burst).toBe(7);
    expect(c.insecure).toBe(true);
    expect(c.baseUrl).toBe('http://marketplace.internal:8080');
    expect(c.guard.maxArchive).toBe(40);
    expect(c.daemon).toMatchObject({ healthHost: '0.0.0.0', healthPort: 9100 });
    expect(c.lists.sortParam).toBe('123');
    expect(c.schedule.tick).toBe('*/2 * * * *');
    expect(c.catalogue.dir).toBe('/srv/cat');
    expect(c.sources).toContain('environment');
    expect(loadConfig({ env: { OFFERSYNC_GUARD_MAXARCHIVE: '' } }).guard.maxArchive).toBeNull();
  });

  it('wins over the config file and loses to flags; the short names still work, the rule name wins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-env-'));
    const file = join(dir, 'offersync.yaml');
    writeFileSync(file, 'rateLimit:\n  burst: 3\nstate:\n  path: ./file.db\n');
    const c = loadConfig({ cwd: '/srv', flags: { config: file }, env: { OFFERSYNC_RATELIMIT_BURST: '6' } });
    expect(c.rateLimit.burst).toBe(6);
    expect(loadConfig({ cwd: '/srv', env: { OFFERSYNC_STATE_DB: 'a.db' } }).state.path).toBe('/srv/a.db');
    expect(
      loadConfig({ cwd: '/srv', env: { OFFERSYNC_STATE_DB: 'a.db', OFFERSYNC_STATE_PATH: 'b.db' } }).state.path,
    ).toBe('/srv/b.db');
    expect(
      loadConfig({
        cwd: '/srv',
        env: { OFFERSYNC_BASE_URL: 'https://a.example' },
        flags: { baseUrl: 'https://b.example' },
      }).baseUrl,
    ).toBe('https://b.example');
  });

  it('reads NAME_FILE from a file (a mounted secret)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-env-'));
    writeFileSync(join(dir, 'url'), 'https://secret.example\n');
    expect(loadConfig({ cwd: dir, env: { OFFERSYNC_BASEURL_FILE: 'url' } }).baseUrl).toBe('https://secret.example');
    expect(() => loadConfig({ cwd: dir, env: { OFFERSYNC_BASEURL_FILE: 'missing' } })).toThrow(
      /OFFERSYNC_BASEURL_FILE names missing, which cannot be read \(ENOENT\)/,
    );
  });

  it('refuses a variable that names no key, suggesting the nearest, and a bad value naming the key', () => {
    expect(() => loadConfig({ env: { OFFERSYNC_RATELIMIT_RATE_PER_SEC: '5' } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { OFFERSYNC_RATELIMIT_RATE_PER_SEC: '5' } })).toThrow(
      /OFFERSYNC_RATELIMIT_RATE_PER_SEC names no configuration key \(did you mean OFFERSYNC_RATELIMIT_RATEPERSEC\?\)/,
    );
    expect(() => loadConfig({ env: { OFFERSYNC_RATELIMIT_BURST: 'many' } })).toThrow(
      /'rateLimit\.burst': .*\(found "many"\)/,
    );
  });
});
