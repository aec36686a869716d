// Saved plans (plan --out, reconcile --plan), as `terraform apply PLANFILE`: carried out exactly, at most once,
// refused with nothing sent when the catalogue, the state or the marketplace changed the offers it covers, never
// with a target, and never holding a credential. Against the sandbox, through the commands themselves.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CapturedRun, mainCaptured } from '../support/captured-io.ts';
import { createHarness, type Harness, harnessCliConfig, TEST_KEY } from '../support/harness.ts';

const PASSWORD = 'pw-saved-plan-secret-1';
let h: Harness | undefined;
let cliConfig: { env: NodeJS.ProcessEnv; cwd: string } | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  cliConfig = undefined;
});

const cli = (argv: string[]): Promise<CapturedRun> => mainCaptured(argv, cliConfig);

async function setup(): Promise<Harness> {
  h = await createHarness();
  cliConfig = harnessCliConfig(h);
  h.write(
    'items/stock.json',
    JSON.stringify([
      { external_id: 'i-1', title: 'One', price: 100 },
      { external_id: 'i-2', title: 'Two', price: 200 },
    ]),
  );
  h.write(
    'accounts/a.json',
    JSON.stringify([{ external_id: 'acc-1', title: 'Acc', price: 900, credentials: { password: PASSWORD } }]),
  );
  return h;
}

describe('saved plans', () => {
  it('carries out exactly the saved plan, once; the file holds no credential', async () => {
    await setup();
    const planned = await cli(['plan', '--out', 'next.plan']);
    expect(planned.code).toBe(3);
    expect(planned.err).toMatch(/saved to next\.plan \(3 writes\); carry it out with: offersync reconcile --plan/);
    const file = readFileSync(join(h!.dir, 'next.plan'), 'utf8');
    expect(file).not.toContain(PASSWORD);
    expect(file).not.toContain(TEST_KEY);

    // A change the plan does not cover is left for a later run: the saved plan is carried out as it is.
    h!.write(
      'items/stock.json',
      JSON.stringify([
        { external_id: 'i-1', title: 'One', price: 100 },
        { external_id: 'i-2', title: 'Two', price: 200 },
        { external_id: 'i-3', title: 'Three', price: 300 },
      ]),
    );
    const applied = await cli(['reconcile', '--plan', 'next.plan']);
    expect(applied.code).toBe(0);
    expect(
      h!.sandbox
        .dump()
        .items.map((i) => i.external_id)
        .sort(),
    ).toEqual(['i-1', 'i-2']);
    expect(h!.sandbox.dump().accounts.map((a) => a.external_id)).toEqual(['acc-1']);

    // Once only, even when nothing else changed.
    const writes = h!.writes();
    const again = await cli(['reconcile', '--plan', 'next.plan']);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/already applied .*at most once.*Nothing was sent/);
    expect(h!.writes()).toBe(writes);
  });

  it('refuses, nothing sent, when the catalogue or the marketplace changed a covered offer', async () => {
    await setup();
    expect((await cli(['reconcile'])).code).toBe(0);
    h!.write(
      'items/stock.json',
      JSON.stringify([
        { external_id: 'i-1', title: 'One', price: 150 },
        { external_id: 'i-2', title: 'Two', price: 250 },
      ]),
    );
    expect((await cli(['plan', '--out', 'p1.plan'])).code).toBe(3);
    // The catalogue changes i-1 again after the plan was made.
    h!.write(
      'items/stock.json',
      JSON.stringify([
        { external_id: 'i-1', title: 'One', price: 175 },
        { external_id: 'i-2', title: 'Two', price: 250 },
      ]),
    );
    const writes = h!.writes();
    const refused = await cli(['reconcile', '--plan', 'p1.plan']);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(
      /changed the offers this saved plan covers, so it was not applied and nothing was sent/,
    );
    expect(refused.out).toContain('i-1 price: planned 1.50, the catalogue now says 1.75');
    expect(h!.writes()).toBe(writes);

    // The marketplace sells i-2 after the plan was made.
    expect((await cli(['plan', '--out', 'p2.plan'])).code).toBe(3);
    h!.sandbox.setStatus('items', 'i-2', 'sold');
    const sold = await cli(['reconcile', '--plan', 'p2.plan']);
    expect(sold.code).toBe(1);
    expect(sold.out).toMatch(/i-2: planned update, now nothing to do/);
    expect(h!.writes()).toBe(writes);
  });

  it('refuses another state db (even an empty one), an edited file, and a target given with it', async () => {
    await setup();
    expect((await cli(['plan', '--out', 'p.plan'])).code).toBe(3);
    const other = await cli(['reconcile', '--plan', 'p.plan', '--state', 'elsewhere/state.db']);
    expect(other.code).toBe(1);
    expect(other.err).toMatch(/made from another state db/);
    expect(h!.writes()).toBe(0);

    const edited = JSON.parse(readFileSync(join(h!.dir, 'p.plan'), 'utf8')) as { allowMassArchive: boolean };
    edited.allowMassArchive = true;
    writeFileSync(join(h!.dir, 'edited.plan'), JSON.stringify(edited));
    const tampered = await cli(['reconcile', '--plan', 'edited.plan']);
    expect(tampered.code).toBe(2);
    expect(tampered.err).toMatch(/changed after it was written \(digest differs\)/);

    const targeted = await cli(['reconcile', '--plan', 'p.plan', '--only', 'item']);
    expect(targeted.code).toBe(2);
    expect(targeted.err).toMatch(/--only, --file and --match cannot go with it/);
    expect(h!.writes()).toBe(0);
  });
});
