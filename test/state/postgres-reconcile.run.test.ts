// Reconcile with its state in a real PostgreSQL (embedded, 127.0.0.1) against the sandbox: the same
// convergence as the sqlite file, and the database password in no log line, error or row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createLogger } from '../../src/log/logger.ts';
import { openPostgresStateStore } from '../../src/state/open-state-store.ts';
import { type Harness, harnessPerTest } from '../support/harness.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { runCli } from '../support/cli.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

let server: TestPostgres;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(() => server?.stop());

const openHarness = harnessPerTest();

function seed(harness: Harness): void {
  harness.write(
    'items/items.json',
    JSON.stringify([
      { external_id: 'item-1', title: 'Rare skin', price: 500, stock: 2, type: 'skin' },
      { external_id: 'item-2', title: 'Gold pack', price: 250, stock: 10, type: 'gold' },
    ]),
  );
  harness.write(
    'accounts/main.json',
    JSON.stringify([
      {
        external_id: 'acc-1',
        title: 'Gold account',
        price: 1000,
        rank: 'Gold II',
        credentials: { login: 'user', password: 'account-pw-1' },
      },
    ]),
  );
}

// Each test opens PostgreSQL connections (a worker thread each): slow on a loaded machine, hence 120 s.
describe('reconcile with the state in PostgreSQL', { timeout: 120_000 }, () => {
  it('converges, then sends no write; the database password appears in no log line nor row', async () => {
    const url = await server.createDatabase();
    const h = await openHarness({ config: { state: { url } } });
    seed(h);
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(s) } });
    const first = await h.reconcile({}, logger);
    expect(first.report.outcome).toBe('converged');
    expect(h.writes()).toBe(3);
    h.sandbox.resetCounters();
    const second = await h.reconcile({}, logger);
    expect(second.report.outcome).toBe('converged');
    expect(h.writes()).toBe(0);

    const store = await openPostgresStateStore('default', { url });
    try {
      expect((await store.listOffers()).map((o) => `${o.kind}/${o.externalId}`)).toEqual([
        'account/acc-1',
        'item/item-1',
        'item/item-2',
      ]);
      expect(await store.listRuns(10)).toHaveLength(2);
      // Each offer's story is kept in the database as in the file: created once, nothing since.
      const story = await store.offerHistory('item', 'item-1', 10);
      expect(story.map((e) => [e.type, e.route, e.answer?.outcome])).toEqual([['created', 'POST /api/v1/items', 'ok']]);
      expect(story[0]?.changes).toContainEqual({ field: 'price', to: 500 });
      expect((await store.offerHistory('account', 'acc-1', 10))[0]?.changes).toContainEqual({ field: 'credentials' });
      expect((await store.searchOffers('rare')).map((o) => o.externalId)).toEqual(['item-1']);
    } finally {
      store.close();
    }
    // offersync history reads it from PostgreSQL as from the file.
    const told = await runCli(['history', 'item-1'], {
      cwd: h.dir,
      env: { PATH: process.env.PATH, OFFERSYNC_STATE_URL: url, OFFERSYNC_LOG_LEVEL: 'warn' },
    });
    expect(told.stderr).toBe('');
    expect(told.stdout).toMatch(/^item item-1 \(Rare skin\): 1 event, oldest first\n.*created: price 5\.00, /);
    expect(lines.join('')).not.toContain(server.password);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const dump = await client.query(`SELECT string_agg(t::text, ' ') AS all FROM (SELECT * FROM offers) t`);
      expect(String(dump.rows[0].all)).not.toContain(server.password);
      expect(String(dump.rows[0].all)).not.toContain('account-pw-1');
    } finally {
      await client.end();
    }
  });

  it('keeps the password out of the error when the server refuses it, and out of config errors', async () => {
    const wrong = `postgres://offersync:Wr0ng-Secret-PW@127.0.0.1:${server.port}/postgres`;
    await expect(openPostgresStateStore('default', { url: wrong })).rejects.toThrow(/password authentication failed/);
    try {
      await openPostgresStateStore('default', { url: wrong });
    } catch (err) {
      expect(String(err)).not.toContain('Wr0ng-Secret-PW');
      expect(String(err)).toContain('offersync:***@127.0.0.1');
    }
    const dir = mkdtempSync(join(tmpdir(), 'offersync-cfg-'));
    try {
      writeFileSync(join(dir, 'c.yaml'), `state:\n  url: ${wrong}\n`);
      expect(() => loadConfig({ env: {}, cwd: dir, flags: { config: join(dir, 'c.yaml') } })).toThrow(
        /password in 'state.url'/,
      );
      try {
        loadConfig({ env: {}, cwd: dir, flags: { config: join(dir, 'c.yaml') } });
      } catch (err) {
        expect(String(err)).not.toContain('Wr0ng-Secret-PW');
      }
      writeFileSync(join(dir, 'url'), `${wrong}\n`);
      expect(loadConfig({ env: { OFFERSYNC_STATE_URL_FILE: 'url' }, cwd: dir }).state.url).toBe(wrong);
      expect(loadConfig({ env: { OFFERSYNC_STATE_URL: wrong }, cwd: dir }).state.url).toBe(wrong);
      expect(() => loadConfig({ env: { OFFERSYNC_STATE_URL: 'mysql://x' }, cwd: dir })).toThrow(
        /a value \(not shown\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes the password from PGPASSWORD when the URL has none', async () => {
    const bare = `postgres://offersync@127.0.0.1:${server.port}/postgres`;
    const store = await openPostgresStateStore('default', { url: bare, password: server.password });
    try {
      expect(await store.listOffers()).toEqual([]);
    } finally {
      store.close();
    }
  });
});
