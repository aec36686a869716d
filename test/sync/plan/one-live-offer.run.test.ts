// One game account, one live offer: the real client against the sandbox, under the document's account answers and
// under the real marketplace's (representation.realAccounts, which returns credentials). An account pasted twice
// is created never; a sold account is not listed again; its other offers are archived when offersync made them and
// reported as urgent when they were made by hand; and no login reaches the state db, the logs or the reports.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../../../src/sandbox/sandbox-options.ts';
import { REAL_SERVER_SWITCHES_ACCOUNTS } from '../../../src/sandbox/sandbox-options.ts';
import { createHarness, type Harness, TEST_KEY } from '../../support/harness.ts';
import { captureLog } from '../../support/log-capture.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CASES: readonly { name: string; sandbox: SandboxOptions; real: boolean }[] = [
  { name: "the document's answers", sandbox: {}, real: false },
  { name: "the real marketplace's accounts", sandbox: REAL_SERVER_SWITCHES_ACCOUNTS, real: true },
];

interface Row {
  readonly id: string;
  readonly login: string;
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

function writeAccounts(harness: Harness, file: string, rows: readonly Row[]): void {
  harness.write(`accounts/${file}`, JSON.stringify(rows.map(account)));
}

/** The sandbox's account offers, as its API lists them (archived and sold included). */
function accounts(harness: Harness): { externalId: string; status: string }[] {
  return harness.sandbox
    .dump()
    .accounts.map((a) => ({ externalId: String(a.external_id), status: String(a.status) }))
    .sort((a, b) => a.externalId.localeCompare(b.externalId));
}

/** Every file under the state directory (db, its -wal, run reports, sold log), as bytes. */
function stateBytes(harness: Harness): Buffer {
  const dir = join(harness.dir, 'state');
  const parts: Buffer[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else parts.push(readFileSync(p));
    }
  };
  walk(dir);
  return Buffer.concat(parts);
}

/** The login in every form a sheet or a store could hold it. */
function loginForms(login: string): string[] {
  return [login, login.toLowerCase(), login.replace(/\s+/g, ''), login.toLowerCase().replace(/\s+/g, '')];
}

describe.each(CASES)('one game account, one live offer ($name)', ({ sandbox, real }) => {
  it('one login in two rows, written in other case and spacing, is one error and creates neither', async () => {
    h = await createHarness({ sandbox });
    writeAccounts(h, 'a.json', [{ id: 'acc-1', login: 'Hero.Main@Mail.test' }]);
    writeAccounts(h, 'b.json', [
      { id: 'acc-2', login: '  hero.main @mail.test ' },
      { id: 'acc-3', login: 'someone-else' },
    ]);
    const run = await h.reconcile();
    const same = run.catalogue.problems.filter((p) => p.message.includes('same game account'));
    expect(same).toHaveLength(1);
    expect(same[0]).toMatchObject({ severity: 'error', file: 'accounts/b.json', externalId: 'acc-2' });
    expect(same[0]!.message).toContain("'acc-1' at accounts/a.json");
    expect(same[0]!.message.toLowerCase()).not.toContain('hero.main');
    expect(accounts(h)).toEqual([{ externalId: 'acc-3', status: 'listed' }]);
  });

  it('a sold account relisted under a new external_id is refused, naming the sale', async () => {
    h = await createHarness({ sandbox });
    writeAccounts(h, 'a.json', [
      { id: 'acc-1', login: 'SoldOnce' },
      { id: 'keep', login: 'other' },
    ]);
    await h.reconcile();
    h.sandbox.setStatus('accounts', 'acc-1', 'sold');
    await h.reconcile();
    // Restocked under a new id, the login written otherwise.
    writeAccounts(h, 'a.json', [
      { id: 'acc-1-restock', login: ' soldonce ' },
      { id: 'keep', login: 'other' },
    ]);
    const run = await h.reconcile();
    const refused = run.report.outcomes.find((o) => o.externalId === 'acc-1-restock');
    expect(refused).toMatchObject({ outcome: 'blocked' });
    expect(refused?.message).toMatch(/^this account was sold on \d{4}-\d\d-\d\d as acc-1; it cannot be listed again$/);
    expect(accounts(h).map((a) => a.externalId)).toEqual(['acc-1', 'keep']);
  });

  it("a sale archives offersync's own other offer of the same account in the same run", async () => {
    h = await createHarness({ sandbox });
    const rows = [
      { id: 'acc-1', login: 'twin' },
      { id: 'acc-2', login: 'not-yet-twin' },
      { id: 'k-1', login: 'k1' },
      { id: 'k-2', login: 'k2' },
    ];
    writeAccounts(h, 'a.json', rows);
    await h.reconcile();
    // The seller's sheet now tells the truth: acc-2 is the same account. Both are held, neither changed.
    writeAccounts(h, 'a.json', [rows[0]!, { id: 'acc-2', login: 'TWIN ' }, rows[2]!, rows[3]!]);
    await h.reconcile();
    expect(accounts(h).find((a) => a.externalId === 'acc-2')?.status).toBe('listed');
    h.sandbox.setStatus('accounts', 'acc-1', 'sold');
    const run = await h.reconcile();
    expect(accounts(h).find((a) => a.externalId === 'acc-2')?.status).toBe('archived');
    expect(run.report.messages.find((m) => m.includes("'acc-2'"))).toMatch(
      /^urgent: account offer 'acc-2' \(#\d+\) is archived: its account was sold on .* as acc-1/,
    );
  });

  it('a sale of an account also listed by hand on the website leaves that offer alone and reports it', async () => {
    h = await createHarness({ sandbox });
    writeAccounts(h, 'a.json', [
      { id: 'acc-1', login: 'Shared.Login' },
      { id: 'k-1', login: 'k1' },
    ]);
    const log = captureLog('debug');
    await h.reconcile({}, log.logger);
    // Made on the website with the same login: offersync did not create it.
    const made = await fetch(`${h.sandbox.url}/api/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        external_id: 'web-1',
        title: 'Listed by hand',
        status: 'listed',
        price: 1400,
        credentials: { login: 'shared.login', password: 'typed-on-the-site' },
      }),
    });
    expect(made.ok).toBe(true);
    h.sandbox.setStatus('accounts', 'acc-1', 'sold');
    h.sandbox.resetCounters();
    const run = await h.reconcile({}, log.logger);
    expect(accounts(h).find((a) => a.externalId === 'web-1')?.status).toBe('listed');
    expect(h.writes()).toBe(0);
    const urgent = run.report.messages.filter((m) => m.startsWith('urgent:'));
    // Only a server that returns credentials tells which account an offer made by hand sells.
    if (real) {
      expect(urgent).toHaveLength(1);
      expect(urgent[0]).toMatch(
        /^urgent: account offer 'web-1' \(#\d+\), not made by offersync, sells the account sold/,
      );
      expect(urgent[0]).toContain("as 'acc-1'");
      // An offer that needs the seller: the status page and the webhook show it.
      expect(run.report.outcomes.find((o) => o.externalId === 'web-1')).toMatchObject({
        outcome: 'blocked',
        message: urgent[0],
      });
    } else expect(urgent).toEqual([]);

    // No login in the state db (its bytes, with its -wal), the run reports beside it, the logs or the report.
    const searched = [
      stateBytes(h).toString('latin1').toLowerCase(),
      JSON.stringify(log.lines).toLowerCase(),
      JSON.stringify(run.report).toLowerCase(),
    ];
    for (const login of ['Shared.Login', 'k1'].flatMap(loginForms))
      for (const text of searched) expect(text.includes(login.toLowerCase()) && login.length > 2).toBe(false);
  });
  it('a full read that finds an account listed twice, once by hand, reports both as urgent', async () => {
    h = await createHarness({ sandbox });
    writeAccounts(h, 'a.json', [{ id: 'acc-1', login: 'Twice' }]);
    await h.reconcile();
    const made = await fetch(`${h.sandbox.url}/api/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        external_id: 'web-2',
        title: 'Listed by hand',
        status: 'listed',
        price: 1400,
        credentials: { login: ' twice', password: 'typed-on-the-site' },
      }),
    });
    expect(made.ok).toBe(true);
    const run = await h.reconcile();
    const urgent = run.report.messages.filter((m) => m.startsWith('urgent:'));
    if (real) {
      expect(urgent).toHaveLength(1);
      expect(urgent[0]).toMatch(
        /^urgent: account offers 'acc-1' \(#\d+\), 'web-2' \(#\d+, made on the website\) sell one/,
      );
    } else expect(urgent).toEqual([]);
    expect(accounts(h)).toEqual([
      { externalId: 'acc-1', status: 'listed' },
      { externalId: 'web-2', status: 'listed' },
    ]);
  });
  it('an offer sent before fingerprints were kept learns its own, so its sale still refuses a relist', async () => {
    h = await createHarness({ sandbox });
    writeAccounts(h, 'a.json', [
      { id: 'old-1', login: 'Veteran' },
      { id: 'keep', login: 'other' },
    ]);
    await h.reconcile();
    // As a state db migrated from a release before the column: no fingerprint kept.
    const db = new Database(h.statePath);
    db.prepare('UPDATE offers SET login_fingerprint = NULL').run();
    db.close();
    await h.reconcile();
    const kept = new Database(h.statePath, { readonly: true });
    const filled = kept.prepare("SELECT login_fingerprint FROM offers WHERE external_id = 'old-1'").pluck().get();
    kept.close();
    expect(filled).toMatch(/^[0-9a-f]{64}$/);
    h.sandbox.setStatus('accounts', 'old-1', 'sold');
    writeAccounts(h, 'a.json', [
      { id: 'old-1-again', login: 'VETERAN' },
      { id: 'keep', login: 'other' },
    ]);
    const run = await h.reconcile();
    expect(run.report.outcomes.find((o) => o.externalId === 'old-1-again')).toMatchObject({ outcome: 'blocked' });
    expect(accounts(h).map((a) => a.externalId)).toEqual(['keep', 'old-1']);
  });
});
