// The PostgreSQL password is read once, with the configuration, from the environment the command was given:
// every command that opens the state signs in the same way.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { stateConnection } from '../../src/config/state-connection.ts';

const URL_WITHOUT_PASSWORD = 'postgres://offersync@127.0.0.1:5432/offersync';

describe('stateConnection', () => {
  it('adds PGPASSWORD when set, for the shop and for each seller of a fleet', () => {
    const env = { OFFERSYNC_STATE_URL: URL_WITHOUT_PASSWORD, PGPASSWORD: 's3cret-pw' };
    const config = loadConfig({
      env,
      cwd: '/tmp',
      overrides: { sellers: [{ id: 'eu-shop', catalogue: '/tmp/eu', apiKeyEnv: 'KEY_EU' }] },
    });
    expect(stateConnection(config)).toEqual({ url: URL_WITHOUT_PASSWORD, password: 's3cret-pw' });
    expect(stateConnection(config.sellerConfigs[0]!)).toEqual({ url: URL_WITHOUT_PASSWORD, password: 's3cret-pw' });
  });

  it('has no password when the environment gives none', () => {
    const config = loadConfig({ env: { OFFERSYNC_STATE_URL: URL_WITHOUT_PASSWORD }, cwd: '/tmp' });
    expect(stateConnection(config)).toEqual({ url: URL_WITHOUT_PASSWORD });
  });
});
