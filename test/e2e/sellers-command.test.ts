// `offersync sellers` as a person types it: what it refuses and why, what it only warns about (a replica on
// another machine may see another disk), and the plain word a sqlite setup gets. `offersync sales` on a sqlite
// state reads sold.jsonl. The PostgreSQL is embedded, on 127.0.0.1; the CLI runs through main in this process.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/captured-io.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';

let server: TestPostgres;
let url: string;
let dir: string;

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase();
  dir = mkdtempSync(join(tmpdir(), 'offersync-sellers-cmd-'));
  mkdirSync(join(dir, 'cat', 'eu'), { recursive: true });
  writeFileSync(join(dir, 'eu.key'), 'key-eu\n', { mode: 0o600 });
  writeFileSync(join(dir, 'offersync.yaml'), ['baseUrl: http://127.0.0.1:9', 'log: { level: silent }', ''].join('\n'));
}, 60_000);

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Each test runs the CLI several times: generous, for a busy machine; a bound, not a timing. */
const CLI_TESTS_MS = 120_000;

const base = () => ({ PATH: process.env.PATH ?? '', OFFERSYNC_CONFIG: join(dir, 'offersync.yaml') });
const pgCli = (args: readonly string[], env: Record<string, string> = {}) =>
  runMain(['sellers', ...args], { cwd: dir, env: { ...base(), OFFERSYNC_STATE_URL: url, ...env } });

describe('offersync sellers', () => {
  it(
    'says plainly that it needs a PostgreSQL state, and what to set',
    async () => {
      const r = await runMain(['sellers', 'list'], {
        cwd: dir,
        env: { ...base(), OFFERSYNC_STATE_DB: './s/state.db' },
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /kept in a PostgreSQL state db, and this configuration keeps its state in a sqlite file/,
      );
      expect(r.stderr).toMatch(/Set state\.url to a postgres:\/\/ URL \(or OFFERSYNC_STATE_URL/);
    },
    CLI_TESTS_MS,
  );

  it(
    'refuses a bad id, a missing key place, a bad base URL; warns of what this machine cannot see',
    async () => {
      const bad = await pgCli(['add', 'EU_Shop', '--catalogue', 'cat/eu', '--api-key-file', 'eu.key']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("seller id 'EU_Shop': expected 1 to 63 lowercase letters, digits and -");
      const nokey = await pgCli(['add', 'eu', '--catalogue', 'cat/eu']);
      expect(nokey.code).toBe(2);
      expect(nokey.stderr).toContain('needs one of --api-key-file <file> or --api-key-env <name>');
      const url2 = await pgCli([
        'add',
        'eu',
        '--catalogue',
        'cat/eu',
        '--api-key-file',
        'eu.key',
        '--base-url',
        'ftp:x',
      ]);
      expect(url2.code).toBe(2);
      expect(url2.stderr).toMatch(/invalid configuration of seller 'eu'.*'baseUrl'/);
      // Not on this machine: told, and added all the same (the replicas may see another disk).
      const far = await pgCli(['add', 'far', '--catalogue', '/mnt/elsewhere/far', '--api-key-env', 'FAR_KEY']);
      expect(far.code).toBe(0);
      expect(far.stderr).toContain('the catalogue /mnt/elsewhere/far does not exist on this machine');
      expect(far.stderr).toContain('FAR_KEY is not set here: every replica must have it set');
      expect(far.stdout).toMatch(
        /^seller far: added \(catalogue \/mnt\/elsewhere\/far, key env FAR_KEY\); running replicas/,
      );
    },
    CLI_TESTS_MS,
  );

  it(
    'adds, refuses to overwrite without --replace, lists, removes and purges',
    async () => {
      const add = await pgCli(['add', 'eu', '--catalogue', 'cat/eu', '--api-key-file', 'eu.key', '--rate-limit', '5']);
      expect(add.stderr).toBe('');
      expect(add.code).toBe(0);
      const again = await pgCli(['add', 'eu', '--catalogue', 'cat/other', '--api-key-file', 'eu.key']);
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(
        /seller 'eu' is served already \(catalogue .*cat\/eu, key file .*eu\.key\): pass --replace/,
      );
      const list = await pgCli(['list']);
      expect(list.stdout).toMatch(/^SELLER +CATALOGUE +KEY +HELD BY +LAST RUN\n/);
      expect(list.stdout).toMatch(/\neu +\S*cat\/eu +file \S*eu\.key +nobody +none yet\n/);
      const json = JSON.parse((await pgCli(['list', '--json'])).stdout) as {
        sellers: { seller: string; overrides: unknown }[];
      };
      expect(json.sellers.find((s) => s.seller === 'eu')?.overrides).toEqual({ rateLimit: { ratePerSec: 5 } });
      const gone = await pgCli(['remove', 'eu', '--purge']);
      expect(gone.code).toBe(0);
      expect(gone.stdout).toMatch(/seller eu: removed;[\s\S]*seller eu: state and history purged \(0 rows/);
      const unknown = await pgCli(['remove', 'eu']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/no seller 'eu' is served \(served: far\); offersync sellers list shows them/);
      const nothing = await pgCli(['frobnicate']);
      expect(nothing.code).toBe(2);
      expect(nothing.stderr).toContain("expected add, remove or list (found 'frobnicate')");
    },
    CLI_TESTS_MS,
  );
});

describe('offersync sales with a sqlite state', () => {
  it(
    'reads sold.jsonl and its rotated file since a duration or a date, oldest first',
    async () => {
      const state = join(dir, 'sq');
      mkdirSync(state, { recursive: true });
      const line = (id: string, seen: string) => JSON.stringify({ kind: 'item', external_id: id, seen_at: seen });
      writeFileSync(join(state, 'sold.jsonl.1'), `${line('old', '2026-11-01T10:00:00.000Z')}\n`);
      writeFileSync(
        join(state, 'sold.jsonl'),
        `${line('mid', '2026-11-10T10:00:00.000Z')}\n{torn\n${line('new', new Date().toISOString())}\n`,
      );
      const env = { ...base(), OFFERSYNC_STATE_DB: join(state, 'state.db') };
      const since = await runMain(['sales', '--since', '2026-11-05', '--json'], { cwd: dir, env });
      expect(since.code).toBe(0);
      expect(
        since.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).external_id),
      ).toEqual(['mid', 'new']);
      const day = await runMain(['sales', '--since', '1d', '--json'], { cwd: dir, env });
      expect(
        day.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).external_id),
      ).toEqual(['new']);
      const bad = await runMain(['sales', '--since', 'yesterday'], { cwd: dir, env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--since expects a duration back from now (30m, 12h, 7d) or a date');
    },
    CLI_TESTS_MS,
  );
});
