// offersync pull as a seller runs it on day one: the CLI's main (in this process: what is tested is what the
// commands print and write, not the process) against the sandbox in each of its representation switches, in each
// catalogue format. The promise: after pull, validate is clean, plan with a fresh
// state db plans no write (only adoptions), and a reconcile sends nothing but the list reads.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxRepresentation } from '../../src/sandbox/sandbox-options.ts';
import { mainCaptured } from '../support/captured-io.ts';
import { createHarness, type Harness, requestsByRoute, TEST_KEY } from '../support/harness.ts';

const EXAMPLE = fileURLToPath(new URL('../../config/example-catalogue', import.meta.url));
const FORMATS = ['csv', 'json', 'ndjson', 'yaml', 'xlsx', 'ods'] as const;
/**
 * Every representation switch of the sandbox, one at a time, then all together. No switch and every switch are
 * pulled in each format; each single switch in one format, the formats taking turns (a format's writer does not
 * depend on the switch: the decoder stands between them).
 */
const SWITCHES = [
  'wrapSingle',
  'epochTimestamps',
  'integersAsStrings',
  'createStatus201',
  'numericIdPathsOnly',
  'gameAsObject',
  'bulkCountsOnly',
  'externalIdPathHtml',
  'idempotencyKeys',
] as const satisfies readonly (keyof SandboxRepresentation)[];
type Format = (typeof FORMATS)[number];
const REPRESENTATIONS: [string, SandboxRepresentation, readonly Format[]][] = [
  ['no switch', {}, FORMATS],
  ...SWITCHES.map((s, i): [string, SandboxRepresentation, readonly Format[]] => [
    s,
    { [s]: true },
    [FORMATS[i % FORMATS.length]!],
  ]),
  ['every switch', Object.fromEntries(SWITCHES.map((s) => [s, true])), FORMATS],
];
/** A fresh state db also reads the gallery once, to find the pulled images among the uploads by content. */
const LIST_ROUTES = [
  'GET /api/v1/accounts',
  'GET /api/v1/items',
  'GET /api/v1/top-ups',
  'GET /api/v1/images',
  'GET /storage/gallery/{filename}',
];

const root = mkdtempSync(join(tmpdir(), 'offersync-pull-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

async function cli(h: Harness, args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  const r = await mainCaptured(args, {
    cwd: root,
    env: {
      OFFERSYNC_BASE_URL: h.sandbox.url,
      OFFERSYNC_API_KEY: TEST_KEY,
      OFFERSYNC_LOG_LEVEL: 'warn',
      ...env,
    },
  });
  return { code: r.code, stdout: r.out, stderr: r.err };
}

/** sha256 of each file of a folder, sorted. */
function hashesIn(folder: string): string[] {
  return readdirSync(folder)
    .map((f) =>
      createHash('sha256')
        .update(readFileSync(join(folder, f)))
        .digest('hex'),
    )
    .sort();
}

/** The example catalogue on the sandbox, one account sold and one processing: the seller's shop before offersync. */
async function shop(representation: SandboxRepresentation): Promise<Harness> {
  const h = await createHarness({ sandbox: { representation } });
  cpSync(EXAMPLE, h.catalogueDir, { recursive: true });
  expect((await h.reconcile()).report.outcome).toBe('converged');
  h.sandbox.setStatus('accounts', 'acc-na-002', 'sold');
  h.sandbox.setStatus('accounts', 'acc-euw-004', 'processing');
  return h;
}

describe.each(REPRESENTATIONS)('pull from a sandbox with %s', (name, representation, formats) => {
  const promise = 'validate clean, plan with a fresh state db plans no write, reconcile sends only list reads';
  it(`in ${formats.join(', ')}: ${promise}`, async () => {
    const h = await shop(representation);
    try {
      const dir = (f: string) => join(root, `${name.replace(/\s/g, '-')}-${f}`);
      const state = (f: string) => join(root, `${name.replace(/\s/g, '-')}-${f}.db`);
      const pulled = await Promise.all(formats.map((f) => cli(h, ['pull', '--out', dir(f), '--format', f])));
      for (const [i, f] of formats.entries()) {
        const r = pulled[i]!;
        expect(r.stderr, f).toBe('');
        expect(r.code, `${f}: ${r.stdout}`).toBe(0);
        expect(r.stdout).toContain(`accounts/accounts.${f}: 4 offers`);
        expect(r.stdout).toContain(`items/items.${f}: 5 offers`);
        expect(r.stdout).toContain(`top-ups/top-ups.${f}: 4 offers`);
        expect(r.stdout).toMatch(/account acc-na-002 \(id \d+\): sold on the marketplace/);
        expect(r.stdout).toMatch(/account acc-euw-004 \(id \d+\): processing on the marketplace/);
        // The gallery, downloaded byte for byte: every example image is on an account that was pulled.
        expect(r.stdout).toContain('images/: 3 gallery image(s) downloaded (the offers name them by path)');
        expect(hashesIn(join(dir(f), 'images'))).toEqual(hashesIn(join(EXAMPLE, 'images')));
      }
      const validated = await Promise.all(formats.map((f) => cli(h, ['validate', dir(f), '--format', 'json'])));
      for (const [i, f] of formats.entries()) {
        const r = validated[i]!;
        expect(r.code, `${f}: ${r.stdout}`).toBe(0);
        const doc = JSON.parse(r.stdout) as { problems: unknown[] };
        expect(doc.problems, f).toEqual([]);
      }
      const planned = await Promise.all(
        formats.map((f) => cli(h, ['plan', '--json', '--catalogue', dir(f), '--state', state(f)])),
      );
      for (const [i, f] of formats.entries()) {
        // Adoptions only: nothing pending on the marketplace, so plan says so with exit 0.
        expect(planned[i]!.code, `${f}: ${planned[i]!.stdout}`).toBe(0);
        const plan = JSON.parse(planned[i]!.stdout) as { actions: { type: string; externalId?: string }[] };
        expect(
          plan.actions.filter((a) => a.type !== 'adopt' && a.type !== 'noop'),
          f,
        ).toEqual([]);
        expect(plan.actions.filter((a) => a.type === 'adopt')).toHaveLength(13);
      }
      h.sandbox.resetCounters();
      const reconciled = await Promise.all(
        formats.map((f) => cli(h, ['reconcile', '--catalogue', dir(f), '--state', state(f)])),
      );
      for (const r of reconciled) expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(h.sandbox.counters().writes).toBe(0);
      expect(Object.keys(requestsByRoute(h.sandbox)).filter((r) => !LIST_ROUTES.includes(r))).toEqual([]);
    } finally {
      await h.close();
    }
  }, 240_000);
});

describe('offersync pull, the rest of the contract', () => {
  const leftOut = 'lists what a catalogue cannot take over, with what to do, and warns where the prune policy archives';
  it(leftOut, async () => {
    // A marketplace as hand edits and old scripts leave it, which the API would not let offersync make: an item
    // without an external_id, an external_id listed twice, a top-up in a status no catalogue entry states.
    const now = Date.now() * 1000;
    const rec = (id: number, externalId: string | null, status: string, fields: Record<string, unknown>) => ({
      id,
      external_id: externalId,
      status,
      created_us: now,
      updated_us: now,
      sold_us: null,
      fields,
    });
    const persistFile = join(root, 'legacy-shop.json');
    writeFileSync(
      persistFile,
      JSON.stringify({
        version: 1,
        clockUs: now,
        nextIds: { accounts: 1, items: 5, topUps: 2, images: 1 },
        accounts: [],
        items: [
          rec(1, null, 'listed', { title: 'Made by hand', price: 500 }),
          rec(2, 'gold-1', 'listed', { title: 'Gold', price: 1999, stock: 3 }),
          rec(3, 'gold-1', 'listed', { title: 'Gold again', price: 1999 }),
          rec(4, 'gold-2', 'listed', { title: 'Gold 2', price: 2000 }),
        ],
        topUps: [rec(1, 'gems-1', 'paused', { offer_title: 'Gems', price: 100 })],
        images: [],
      }),
    );
    const h = await createHarness({ sandbox: { persistFile } });
    try {
      const out = join(root, 'legacy');
      const r = await cli(h, ['pull', '--out', out, '--format', 'csv'], { OFFERSYNC_SYNC_PRUNE: 'all' });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('items/items.csv: 2 offers');
      expect(r.stdout).toContain('Not taken over (3 offer(s)):');
      expect(r.stdout).toContain(
        'item: 1 offer(s) without an external_id; offersync never sees them; do: give each one an external_id',
      );
      expect(r.stdout).toContain(
        'item gold-1 (id 3): external_id listed twice (ids 2 and 3); the catalogue holds id 2; ' +
          'do: archive id 3 on the website, or give it an external_id of its own and pull again',
      );
      expect(r.stdout).toContain(
        "topup gems-1 (id 1): status 'paused', which a catalogue entry cannot state (draft, pending, listed, " +
          'archived); do: change its status on the website to one of those, then pull again\n' +
          '    WARNING: your sync.prune / sync.ownedPattern owns it, so the next reconcile archives it',
      );
      expect(readFileSync(join(out, 'items', 'items.csv'), 'utf8')).toBe(
        'external_id,title,price,stock,status\r\ngold-1,Gold,19.99,3,listed\r\ngold-2,Gold 2,20.00,,listed\r\n',
      );
    } finally {
      await h.close();
    }
  }, 120_000);

  it('refuses a non-empty folder without --force, writes into it with --force', async () => {
    const h = await shop({});
    try {
      const out = join(root, 'occupied');
      cpSync(EXAMPLE, out, { recursive: true });
      const refused = await cli(h, ['pull', '--out', out]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('is not empty: pull writes into an empty folder; give --force');
      expect(existsSync(join(out, 'accounts', 'accounts.yaml'))).toBe(false);
      const forced = await cli(h, ['pull', '--out', out, '--force', '--only', 'item']);
      expect(forced.code, forced.stderr).toBe(0);
      expect(readFileSync(join(out, 'items', 'items.yaml'), 'utf8')).toContain('external_id: item-skin-001');
      expect(forced.stdout).toContain('read beside the pulled files (remove those that hold the same offers');
      expect(forced.stdout).toContain('  items/skins.yaml\n');
    } finally {
      await h.close();
    }
  }, 120_000);

  it('writes no credentials by default; --with-credentials makes the files 0600 and says what it got', async () => {
    const h = await shop({});
    try {
      const plain = join(root, 'plain');
      const secret = join(root, 'secret');
      const [a, b] = await Promise.all([
        cli(h, ['pull', '--out', plain, '--only', 'account', '--format', 'json']),
        cli(h, ['pull', '--out', secret, '--only', 'account', '--format', 'json', '--with-credentials']),
      ]);
      expect(a.code).toBe(0);
      expect(b.code).toBe(0);
      expect(readFileSync(join(plain, 'accounts', 'accounts.json'), 'utf8')).not.toMatch(/credentials|password/);
      expect(a.stdout).toContain('account credentials: not written (--with-credentials)');
      expect(statSync(join(plain, 'accounts', 'accounts.json')).mode & 0o077).not.toBe(0);
      expect(statSync(join(secret, 'accounts', 'accounts.json')).mode & 0o777).toBe(0o600);
      expect(b.stdout).toContain('account credentials: the marketplace returns none');
    } finally {
      await h.close();
    }
  }, 120_000);

  it('a catalogue entry without credentials plans no credentials update for an account offersync manages', async () => {
    const h = await createHarness();
    try {
      const withCredentials = {
        external_id: 'acc-1',
        title: 'Gold',
        price: 1999,
        credentials: { login: 'a', password: 'b' },
      };
      h.write('accounts/a.json', JSON.stringify([withCredentials]));
      expect((await h.reconcile()).report.outcome).toBe('converged');
      const { credentials: _, ...without } = withCredentials;
      h.write('accounts/a.json', JSON.stringify([without]));
      h.sandbox.resetCounters();
      const r = await cli(h, ['plan', '--json', '--catalogue', h.catalogueDir, '--state', h.statePath]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(h.sandbox.counters().writes).toBe(0);
    } finally {
      await h.close();
    }
  }, 120_000);

  it('bad flags are usage errors that say what to give', async () => {
    const h = await createHarness();
    try {
      const noOut = await cli(h, ['pull']);
      expect(noOut.code).toBe(2);
      expect(noOut.stderr).toContain('--out <dir> is required');
      const badFormat = await cli(h, ['pull', '--out', join(root, 'x'), '--format', 'xml']);
      expect(badFormat.code).toBe(2);
      expect(badFormat.stderr).toContain("--format takes json, ndjson, csv, yaml, xlsx, ods, got 'xml'");
      writeFileSync(join(root, 'not-a-dir'), 'x');
      const file = await cli(h, ['pull', '--out', join(root, 'not-a-dir'), '--force']);
      expect(file.code).toBe(2);
      expect(file.stderr).toContain('not-a-dir is a file: --out names the folder to write the catalogue into');
    } finally {
      await h.close();
    }
  }, 120_000);
});
