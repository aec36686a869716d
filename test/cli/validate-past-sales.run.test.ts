// validate and past sales: with the seller's state db there, an account it saw sold and listed again under
// another external_id is an error of validate, before any run; the sold row itself is not. Without a state db,
// validate makes none. The real client against the sandbox makes the sale the state db remembers.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessCliConfig, harnessPerTest } from '../support/harness.ts';
import { mainCaptured } from '../support/captured-io.ts';

const harness = harnessPerTest();

function account(id: string, login: string) {
  return {
    external_id: id,
    title: `Gold account ${id}`,
    price: 1500,
    game: 'lol',
    server: 'euw',
    credentials: { login, password: `pw-${id}-secret` },
  };
}

interface Problem {
  readonly externalId?: string;
  readonly severity: string;
  readonly field?: string;
  readonly message: string;
}

describe('validate sees past sales', () => {
  it('a sold account relisted under a new external_id is an error naming the sale', async () => {
    const h = await harness();
    h.write('accounts/a.json', JSON.stringify([account('acc-1', 'SoldOnce'), account('keep', 'other')]));
    await h.reconcile();
    h.sandbox.setStatus('accounts', 'acc-1', 'sold');
    await h.reconcile();
    // The sold row itself, left in the sheet, is no relist.
    expect((await mainCaptured(['validate'], harnessCliConfig(h))).code).toBe(0);
    h.write('accounts/a.json', JSON.stringify([account('acc-1-restock', ' soldonce '), account('keep', 'other')]));
    const r = await mainCaptured(['validate', '--json'], harnessCliConfig(h));
    expect(r.code).toBe(1);
    const problems = (JSON.parse(r.out) as { problems: Problem[] }).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ externalId: 'acc-1-restock', severity: 'error', field: 'credentials.login' });
    expect(problems[0]!.message).toMatch(
      /^this account was sold on \d{4}-\d\d-\d\d as acc-1; it cannot be listed again: remove this row$/,
    );
    expect(r.out.toLowerCase()).not.toContain('soldonce');
  });

  it('without a state db validate makes none and knows of no sale', async () => {
    const h = await harness();
    h.write('accounts/a.json', JSON.stringify([account('acc-1', 'fresh')]));
    const r = await mainCaptured(['validate'], harnessCliConfig(h));
    expect(r.code).toBe(0);
    expect(existsSync(join(h.dir, 'state'))).toBe(false);
  });
});
