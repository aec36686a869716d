// Accepted is not applied: top-up renames, amount and unit changes reach the marketplace in one run, under the
// document's sandbox and under the real server's switches (names title, amount, unit; a top-up bulk-update that
// reads nine keys and ignores the rest with a 200; answers itemising the rows as stored). A field a bulk answer
// shows unchanged goes again by PATCH in the same run, and a title edited on the website is patched back.
import { describe, expect, it } from 'vitest';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { REAL_SERVER_SWITCHES_BULK } from '../../src/sandbox/real-server-bulk.ts';
import type { SandboxOptions } from '../../src/sandbox/sandbox-server.ts';
import { hasChanges } from '../../src/sync/plan/plan-actions.ts';
import { overrideMethod } from '../support/client-override.ts';
import { type Harness, harnessPerTest, requestsByRoute } from '../support/harness.ts';

const openHarness = harnessPerTest();

interface TopUp {
  readonly external_id: string;
  readonly offer_title: string;
  readonly offer_amount: number;
  readonly offer_unit: string;
  readonly price: number;
}

const START: readonly TopUp[] = Array.from({ length: 5 }, (_, i) => ({
  external_id: `tu-${i}`,
  offer_title: `Gems ${i}`,
  offer_amount: 100 * (i + 1),
  offer_unit: 'gems',
  price: 500 + i,
}));

const write = (h: Harness, topUps: readonly TopUp[]) => h.write('top-ups/t.json', JSON.stringify(topUps));

/** What the sandbox stores of each top-up, by external_id. */
const stored = (h: Harness): Record<string, Record<string, unknown>> =>
  Object.fromEntries(
    h.sandbox
      .dump()
      .topUps.map((t) => [
        t.external_id,
        { offer_title: t.offer_title, offer_amount: t.offer_amount, offer_unit: t.offer_unit },
      ]),
  );

const SERVERS: readonly [string, SandboxOptions][] = [
  ['the document', {}],
  ['the real server', REAL_SERVER_SWITCHES_BULK],
];

describe.each(SERVERS)('top-up changes against %s', (_name, sandbox) => {
  it('3 renamed, an amount and a unit changed in one run: all on the marketplace, the next plan empty', async () => {
    const h = await openHarness({ sandbox });
    write(h, START);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    const next = START.map((t, i) => ({
      ...t,
      ...(i < 3 ? { offer_title: `Crystals ${i}` } : {}),
      ...(i === 3 ? { offer_amount: 450 } : {}),
      ...(i === 4 ? { offer_unit: 'crystals' } : {}),
    }));
    write(h, next);
    h.sandbox.resetCounters();
    const run = await h.reconcile();
    expect(run.report.outcome).toBe('converged');
    expect(run.report.counts.topup?.updated).toBe(5);
    // Titles and the amount in one bulk call; the unit, which a bulk route may ignore, by its PATCH.
    const byRoute = h.sandbox.counters().byRoute;
    expect(byRoute['POST /api/v1/top-ups/bulk-update']?.['200']).toBe(1);
    expect(byRoute['PATCH /api/v1/top-ups/{identifier}']).toEqual({ '200': 1 });
    expect(stored(h)).toEqual(
      Object.fromEntries(
        next.map((t) => [
          t.external_id,
          { offer_title: t.offer_title, offer_amount: t.offer_amount, offer_unit: t.offer_unit },
        ]),
      ),
    );
    expect(hasChanges((await h.reconcile({ dryRun: true })).plan)).toBe(false);
  });

  it('a title edited on the website is noticed and patched back', async () => {
    const h = await openHarness({ sandbox });
    write(h, START);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    const id = h.sandbox.dump().topUps.find((t) => t.external_id === 'tu-2')!.id as number;
    const edit = await fetch(`${h.sandbox.url}/api/v1/top-ups/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${h.config.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ offer_title: 'Edited on the website' }),
    });
    expect(edit.status).toBe(200);
    const run = await h.reconcile();
    expect(run.report.counts.topup?.updated).toBe(1);
    expect(stored(h)['tu-2']?.offer_title).toBe('Gems 2');
  });
});

describe('a bulk answer whose rows show a field unchanged', () => {
  it('the field is not reported updated by the bulk call: it goes by PATCH in the same run', async () => {
    const h = await openHarness({ sandbox: REAL_SERVER_SWITCHES_BULK });
    write(h, START);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    write(
      h,
      START.map((t) => ({ ...t, offer_title: `${t.offer_title} v2` })),
    );
    // A marketplace that takes the call and leaves the titles as they were.
    const ignoring = (client: MarketplaceClient) =>
      overrideMethod(client, 'topUps', 'bulk', (original, op, key, elements, opts) =>
        original(
          op,
          key,
          (elements as Record<string, unknown>[]).map(({ title: _t, offer_title: _o, ...rest }) => rest),
          opts,
        ),
      );
    h.sandbox.resetCounters();
    const run = await h.reconcile({}, undefined, ignoring);
    expect(run.report.outcome).toBe('converged');
    const routes = requestsByRoute(h.sandbox);
    expect(routes['PATCH /api/v1/top-ups/{identifier}']).toBe(5);
    const titles = START.map((t) => stored(h)[t.external_id]?.offer_title);
    expect(titles).toEqual(START.map((t) => `${t.offer_title} v2`));
  });
});
