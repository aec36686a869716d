// Where pull may write: never over the seller's own catalogue without --overwrite, and then with a backup. An
// accounts file holding logins and passwords, a comment and offers not yet listed must survive a pull.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mainCaptured } from '../support/captured-io.ts';
import { harnessCliConfig, harnessPerTest } from '../support/harness.ts';

const openHarness = harnessPerTest();

const SELLERS_FILE =
  '# my accounts: keep the passwords here\n' +
  'offers:\n' +
  '  - external_id: acc-1\n    title: Listed\n    price: 5000\n' +
  '    credentials: { login: user1, password: hunter2 }\n' +
  '  - external_id: acc-2\n    title: Not yet listed\n    price: 6000\n' +
  '  - external_id: acc-3\n    title: Not yet listed either\n    price: 7000\n';

describe("pull never destroys the seller's catalogue", () => {
  it('refuses --out <the catalogue> even with --force; --overwrite writes it and keeps a backup', async () => {
    const h = await openHarness();
    h.write('accounts/accounts.yaml', 'offers:\n  - external_id: acc-1\n    title: Listed\n    price: 5000\n');
    await h.reconcile();
    h.write('accounts/accounts.yaml', SELLERS_FILE);
    const cli = harnessCliConfig(h);
    const file = join(h.catalogueDir, 'accounts', 'accounts.yaml');

    const refused = await mainCaptured(['pull', '--out', 'catalogue', '--force'], cli);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('catalogue is the catalogue offersync syncs (catalogue.dir)');
    expect(refused.err).toContain('give --overwrite');
    expect(readFileSync(file, 'utf8')).toBe(SELLERS_FILE);

    const plan = await mainCaptured(['plan'], cli);
    expect(plan.out).toMatch(/create {2}acc-2/);

    const overwritten = await mainCaptured(['pull', '--out', 'catalogue', '--overwrite'], cli);
    expect(overwritten.code, overwritten.err).toBe(0);
    const backups = readdirSync(join(h.catalogueDir, 'accounts')).filter((f) => f.includes('.backup-'));
    expect(backups).toHaveLength(1);
    expect(overwritten.out).toContain(`accounts/${backups[0]}`);
    expect(readFileSync(join(h.catalogueDir, 'accounts', backups[0]!), 'utf8')).toBe(SELLERS_FILE);
    // The backup is no catalogue file: the offers are not read twice.
    const validate = await mainCaptured(['validate'], cli);
    expect(validate.out).not.toContain('backup');
  });

  it('into another folder with --force: refuses to replace a file holding what the marketplace lacks', async () => {
    const h = await openHarness();
    h.write('accounts/accounts.yaml', 'offers:\n  - external_id: acc-1\n    title: Listed\n    price: 5000\n');
    await h.reconcile();
    const cli = harnessCliConfig(h);
    const copy = join(h.dir, 'copy');
    expect((await mainCaptured(['pull', '--out', 'copy'], cli)).code).toBe(0);
    const pulled = readFileSync(join(copy, 'accounts', 'accounts.yaml'), 'utf8');
    // Pulled again over what pull wrote: nothing is lost, so --force is enough.
    expect((await mainCaptured(['pull', '--out', 'copy', '--force'], cli)).code).toBe(0);

    const edited = `${pulled}- external_id: acc-9\n  title: Mine\n  price: 100\n`;
    writeFileSync(join(copy, 'accounts', 'accounts.yaml'), edited);
    const refused = await mainCaptured(['pull', '--out', 'copy', '--force'], cli);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(
      'copy/accounts/accounts.yaml holds external_ids the marketplace did not return (acc-9)',
    );
    expect(readFileSync(join(copy, 'accounts', 'accounts.yaml'), 'utf8')).toBe(edited);
    expect(existsSync(join(copy, 'images'))).toBe(true);
  });
});
