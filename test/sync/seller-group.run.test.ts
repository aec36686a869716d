// One game account, one live offer across a seller group (config sellers[].group): three sellers in one
// configuration, each its own shop of one sandbox (sellerPerKey) and its own sqlite state db, the real client and
// services as the CLI wires them. Sellers a and b are one group, c is on its own. Under the document's account
// answers and under the real marketplace's (which returns credentials).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openServices } from '../../src/cli/services.ts';
import type { Config } from '../../src/config/config.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { notificationsOfRun, NOTHING_TOLD } from '../../src/notify/notification.ts';
import type { Logger } from '../../src/log/logger.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { SandboxOptions } from '../../src/sandbox/sandbox-options.ts';
import { REAL_SERVER_SWITCHES_ACCOUNTS } from '../../src/sandbox/sandbox-options.ts';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { reconcile, type ReconcileResult } from '../../src/sync/reconciler.ts';
import { mainCaptured } from '../support/captured-io.ts';
import { captureLog } from '../support/log-capture.ts';
import { queryOnce, startPostgres, type TestPostgres } from '../support/postgres.ts';

const SELLERS = ['a', 'b', 'c'] as const;
type Seller = (typeof SELLERS)[number];
const keyOf = (s: Seller) => `group-test-key-${s}-0123456789`;

const CASES: readonly { name: string; sandbox: SandboxOptions; real: boolean }[] = [
  { name: "the document's answers", sandbox: {}, real: false },
  { name: "the real marketplace's accounts", sandbox: REAL_SERVER_SWITCHES_ACCOUNTS, real: true },
];

interface Fleet {
  readonly sandbox: RunningSandbox;
  readonly dir: string;
  /** Sellers a and b grouped as owner-1 (or none grouped), c on its own. */
  configure(grouped: boolean): void;
  config(s: Seller): Config;
  write(s: Seller, rows: readonly Row[]): void;
  run(s: Seller, logger?: Logger): Promise<ReconcileResult>;
  /** The shop's account offers: external_id -> status. */
  shop(s: Seller): Record<string, string>;
  close(): Promise<void>;
}

interface Row {
  readonly id: string;
  readonly login: string;
}

/** `stateUrl`: a PostgreSQL state db the sellers share; default each its own sqlite file. */
async function startFleet(sandboxOptions: SandboxOptions, stateUrl = ''): Promise<Fleet> {
  const sandbox = await startSandbox({ apiKeys: SELLERS.map(keyOf), sellerPerKey: true, ...sandboxOptions });
  const dir = mkdtempSync(join(tmpdir(), 'offersync-group-'));
  for (const s of SELLERS) mkdirSync(join(dir, s, 'accounts'), { recursive: true });
  const env = Object.fromEntries(SELLERS.map((s) => [`KEY_${s.toUpperCase()}`, keyOf(s)]));
  let configs = new Map<Seller, Config>();
  const fleet: Fleet = {
    sandbox,
    dir,
    configure(grouped) {
      const base = loadConfig({
        env,
        cwd: dir,
        flags: { state: join(dir, 'state', 'state.db'), baseUrl: sandbox.url },
        overrides: {
          rateLimit: { ratePerSec: 500, burst: 500, maxAttempts: 8 },
          log: { level: 'silent' },
          ...(stateUrl ? { state: { url: stateUrl } } : {}),
          sellers: SELLERS.map((s) => ({
            id: s,
            catalogue: join(dir, s),
            apiKeyEnv: `KEY_${s.toUpperCase()}`,
            ...(grouped && s !== 'c' ? { group: 'owner-1' } : {}),
          })),
        },
      });
      configs = new Map(base.sellerConfigs.map((c) => [c.seller as Seller, c]));
    },
    config: (s) => configs.get(s)!,
    write(s, rows) {
      writeFileSync(join(dir, s, 'accounts', 'a.json'), JSON.stringify(rows.map(account)));
    },
    async run(s, logger = silentLogger) {
      const services = await openServices(fleet.config(s), { logger });
      try {
        return await reconcile(services.reconcileDeps, { command: 'test', dryRun: false });
      } finally {
        await services.close();
      }
    },
    shop(s) {
      const prefix = `${s}-`;
      return Object.fromEntries(
        sandbox
          .dump()
          .accounts.filter((a) => String(a.external_id).startsWith(prefix))
          .map((a) => [String(a.external_id), String(a.status)]),
      );
    },
    async close() {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  fleet.configure(true);
  return fleet;
}

function account(r: Row) {
  return {
    external_id: r.id,
    title: `Gold account ${r.id}`,
    price: 1500,
    game: 'lol',
    server: 'euw',
    credentials: { login: r.login, password: `pw-${r.id}-secret` },
  };
}

/** Every file under a folder (state dbs, their -wal, key files, run reports), as text. */
function bytesUnder(dir: string): string {
  const parts: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else parts.push(readFileSync(p).toString('latin1'));
    }
  };
  walk(dir);
  return parts.join('\n').toLowerCase();
}

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

describe.each(CASES)('one game account across a seller group ($name)', ({ sandbox, real }) => {
  it("b cannot list an account a has live: an error naming a's offer; c, not in the group, can", async () => {
    fleet = await startFleet(sandbox);
    fleet.write('a', [{ id: 'a-1', login: 'Hero.Main@Mail.test' }]);
    await fleet.run('a');
    expect(fleet.shop('a')).toEqual({ 'a-1': 'listed' });

    fleet.write('b', [
      { id: 'b-1', login: '  hero.main @mail.test ' },
      { id: 'b-2', login: 'someone-else' },
    ]);
    const log = captureLog('debug');
    const b = await fleet.run('b', log.logger);
    expect(fleet.shop('b')).toEqual({ 'b-2': 'listed' });
    const refused = b.report.outcomes.find((o) => o.externalId === 'b-1');
    expect(refused).toMatchObject({ outcome: 'blocked' });
    expect(refused?.message).toMatch(/^the same game account as seller a's 'a-1' \(#\d+\), live in another shop/);

    fleet.write('c', [{ id: 'c-1', login: 'hero.main@mail.test' }]);
    await fleet.run('c');
    expect(fleet.shop('c')).toEqual({ 'c-1': 'listed' });

    // a is still served as before: its own offer is unchanged, not reported.
    const a = await fleet.run('a');
    expect(a.report.messages.filter((m) => m.startsWith('urgent:'))).toEqual([]);

    // No login in any state db, key file or run report, in the logs, or in the reports.
    const searched = [bytesUnder(join(fleet.dir, 'state')), JSON.stringify(log.lines), JSON.stringify(b.report)].map(
      (t) => t.toLowerCase(),
    );
    for (const login of ['hero.main@mail.test', 'hero.main', 'someone-else'])
      for (const text of searched) expect(text.includes(login)).toBe(false);
  });

  it("a sale on a archives b's copy listed before the group existed, and tells why", async () => {
    fleet = await startFleet(sandbox);
    fleet.configure(false);
    fleet.write('a', [{ id: 'a-1', login: 'Twin' }]);
    fleet.write('b', [
      { id: 'b-1', login: ' twin' },
      { id: 'b-k', login: 'kept' },
    ]);
    await fleet.run('a');
    await fleet.run('b');
    expect(fleet.shop('b')).toEqual({ 'b-1': 'listed', 'b-k': 'listed' });

    // Grouped now: the two live copies are told at once, neither is touched while none is sold.
    fleet.configure(true);
    await fleet.run('a');
    const both = await fleet.run('b');
    const twice = both.report.messages.filter((m) => m.startsWith('urgent:'));
    expect(twice).toHaveLength(1);
    expect(twice[0]).toMatch(/^urgent: account offers 'b-1' \(#\d+\), seller a's 'a-1' \(#\d+\) sell one game account/);
    expect(fleet.shop('b')).toEqual({ 'b-1': 'listed', 'b-k': 'listed' });

    fleet.sandbox.setStatus('accounts', 'a-1', 'sold');
    await fleet.run('a');
    const b = await fleet.run('b');
    expect(fleet.shop('b')).toEqual({ 'b-1': 'archived', 'b-k': 'listed' });
    expect(b.report.messages.find((m) => m.includes("'b-1'"))).toMatch(
      /^urgent: account offer 'b-1' \(#\d+\) is archived: its account was sold on \d{4}-\d\d-\d\d as a-1 by seller a/,
    );

    // Relisted in b under another id: refused, naming a's sale.
    fleet.write('b', [
      { id: 'b-1-again', login: 'TWIN' },
      { id: 'b-k', login: 'kept' },
    ]);
    const again = await fleet.run('b');
    expect(again.report.outcomes.find((o) => o.externalId === 'b-1-again')?.message).toMatch(
      /^this account was sold on \d{4}-\d\d-\d\d as a-1 by seller a; it cannot be listed again$/,
    );
    expect(fleet.shop('b')['b-1-again']).toBeUndefined();
  });

  it("validate of b's catalogue refuses an account a sold, read from a's state db", async () => {
    fleet = await startFleet(sandbox);
    fleet.write('a', [{ id: 'a-1', login: 'Gone.Login' }]);
    await fleet.run('a');
    fleet.sandbox.setStatus('accounts', 'a-1', 'sold');
    await fleet.run('a');
    fleet.write('b', [{ id: 'b-1', login: 'gone.login' }]);
    fleet.write('c', [{ id: 'c-1', login: 'gone.login' }]);
    const file = join(fleet.dir, 'offersync.yaml');
    writeFileSync(
      file,
      `baseUrl: ${fleet.sandbox.url}\nstate:\n  path: ./state/state.db\nlog:\n  level: silent\nsellers:\n` +
        SELLERS.map(
          (s) =>
            `  - id: ${s}\n    catalogue: ./${s}\n    apiKeyEnv: KEY_${s.toUpperCase()}\n` +
            (s === 'c' ? '' : '    group: owner-1\n'),
        ).join(''),
    );
    const validate = (s: Seller) =>
      mainCaptured(['validate', join(fleet!.dir, s), '--config', file], { cwd: fleet!.dir, env: {} });
    const b = await validate('b');
    expect(b.code).toBe(1);
    expect(b.out).toMatch(/this account was sold on \d{4}-\d\d-\d\d as a-1 by seller a; it cannot be listed again/);
    expect(b.out.toLowerCase()).not.toContain('gone.login');
    expect((await validate('c')).code).toBe(0);
  });

  it("a group seller's state db that cannot be read stops the others' runs before any write, naming it", async () => {
    fleet = await startFleet(sandbox);
    fleet.write('b', [{ id: 'b-1', login: 'whoever' }]);
    await fleet.run('b');
    const file = join(fleet.dir, 'state', 'sellers', 'b', 'state.db');
    for (const suffix of ['-wal', '-shm']) rmSync(file + suffix, { force: true });
    writeFileSync(file, 'not a database, and large enough to be read as one page of it '.repeat(100));
    fleet.write('a', [{ id: 'a-1', login: 'whoever-else' }]);
    const failed = await fleet.run('a').then(
      (r) => r.report.messages.join('\n'),
      (err: unknown) => String(err),
    );
    expect(failed).toContain(`seller group owner-1: could not read seller b's state db ${file}`);
    expect(fleet.shop('a')).toEqual({});
  });

  it('a sale in a group leaves a seller outside it alone', async () => {
    fleet = await startFleet(sandbox);
    fleet.write('a', [{ id: 'a-1', login: 'lonely' }]);
    fleet.write('c', [{ id: 'c-1', login: 'lonely' }]);
    await fleet.run('a');
    await fleet.run('c');
    fleet.sandbox.setStatus('accounts', 'a-1', 'sold');
    await fleet.run('a');
    const c = await fleet.run('c');
    expect(fleet.shop('c')).toEqual({ 'c-1': 'listed' });
    expect(c.report.messages.filter((m) => m.startsWith('urgent:'))).toEqual([]);
  });

  it('a live copy in b made by hand of an account sold by a is urgent, with its own webhook event', async () => {
    fleet = await startFleet(sandbox);
    fleet.write('a', [{ id: 'a-1', login: 'Shared.Login' }]);
    fleet.write('b', [{ id: 'b-k', login: 'kept' }]);
    await fleet.run('a');
    await fleet.run('b');
    const made = await fetch(`${fleet.sandbox.url}/api/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keyOf('b')}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        external_id: 'b-web',
        title: 'Listed by hand',
        status: 'listed',
        price: 1400,
        credentials: { login: 'shared.login', password: 'typed-on-the-site' },
      }),
    });
    expect(made.ok).toBe(true);
    fleet.sandbox.setStatus('accounts', 'a-1', 'sold');
    await fleet.run('a');
    const b = await fleet.run('b');
    expect(fleet.shop('b')['b-web']).toBe('listed');
    const told = notificationsOfRun(b.report, undefined, 'b', NOTHING_TOLD, new Date()).notifications;
    const urgent = told.filter((n) => n.event === 'sold-account-live');
    // Only a server that returns credentials tells which account an offer made by hand sells.
    if (real) {
      expect(urgent).toHaveLength(1);
      expect(urgent[0]).toMatchObject({ external_id: 'b-web', seller: 'b' });
      expect(urgent[0]!.message).toMatch(/not made by offersync, sells the account sold on .* as 'a-1' by seller a/);
      expect(told.filter((n) => n.event === 'failed')).toEqual([]);
    } else expect(urgent).toEqual([]);
  });
});

describe('a seller group on a shared PostgreSQL state db', () => {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('one key for the group in the db; b cannot list what a has live, nor relist what a sold; c can', async () => {
    const url = await server!.createDatabase();
    fleet = await startFleet(REAL_SERVER_SWITCHES_ACCOUNTS, url);
    fleet.write('a', [{ id: 'a-1', login: 'Pg.Login' }]);
    await fleet.run('a');
    fleet.write('b', [{ id: 'b-1', login: 'pg.login ' }]);
    const b = await fleet.run('b');
    expect(b.report.outcomes.find((o) => o.externalId === 'b-1')?.message).toMatch(
      /^the same game account as seller a's 'a-1' \(#\d+\), live in another shop/,
    );
    fleet.write('c', [{ id: 'c-1', login: 'PG.LOGIN' }]);
    await fleet.run('c');
    expect(fleet.shop('c')).toEqual({ 'c-1': 'listed' });

    fleet.sandbox.setStatus('accounts', 'a-1', 'sold');
    await fleet.run('a');
    const again = await fleet.run('b');
    expect(again.report.outcomes.find((o) => o.externalId === 'b-1')?.message).toMatch(
      /^this account was sold on \d{4}-\d\d-\d\d as a-1 by seller a; it cannot be listed again$/,
    );
    expect(fleet.shop('b')).toEqual({});

    const keys = await queryOnce<{ key: string }>(url, `SELECT key FROM seller_meta WHERE key LIKE '%fingerprint%'`);
    expect(keys.map((k) => k.key)).toEqual(['shared.group.owner-1.fingerprint-key']);
    // No login in any table of the shared database.
    const tables = await queryOnce<{ t: string }>(
      url,
      `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    for (const { t } of tables) {
      const rows = await queryOnce<{ j: string }>(url, `SELECT row_to_json(x)::text AS j FROM "${t}" x`);
      expect(rows.some((r) => r.j.toLowerCase().includes('pg.login'))).toBe(false);
    }
  }, 60_000);
});
