// An item's game changed in the catalogue. The real marketplace's single PATCH takes game (its bulk-update ignores
// it); the API document's five update fields do not include it. Against the sandbox both ways
// (representation.itemUpdateTakesGame): sent by the single PATCH and converged where it is taken; where it is
// refused, learnt once, the rest of the change sent without it, and the game reported as not changeable.
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/state/open-state-store.ts';
import { CAPABILITIES } from '../../../src/capabilities/names.ts';
import { type Harness, harnessPerTest, requestsByRoute } from '../../support/harness.ts';

const openHarness = harnessPerTest();

const items = (game: string, title = 'Item') =>
  JSON.stringify(
    [1, 2, 3].map((i) => ({
      external_id: `it-${i}`,
      title: `${title} ${i}`,
      price: 100,
      stock: 2,
      game: i === 1 ? game : 'lol',
    })),
  );

async function capability(h: Harness): Promise<boolean | undefined> {
  const store = await openStateStore(h.statePath);
  try {
    return (await store.getCapability(CAPABILITIES.itemGameUpdate))?.usable;
  } finally {
    await store.close();
  }
}

const stored = (h: Harness, id: string) => h.sandbox.dump().items.find((i) => i.external_id === id);

describe("an item's game change", () => {
  it('goes by the single PATCH, also when the others go by bulk-update, where the marketplace takes it', async () => {
    const h = await openHarness({
      sandbox: { representation: { itemUpdateTakesGame: true }, bulk: { undocumented: true } },
    });
    h.write('items/a.json', items('lol'));
    await h.reconcile();
    h.write('items/a.json', items('valorant', 'Renamed'));
    h.sandbox.resetCounters();
    const { report } = await h.reconcile();
    expect(report.outcome).toBe('converged');
    expect(stored(h, 'it-1')).toMatchObject({ game: 'valorant', title: 'Renamed 1' });
    expect(stored(h, 'it-2')).toMatchObject({ title: 'Renamed 2' });
    const byRoute = requestsByRoute(h.sandbox);
    expect(byRoute['PATCH /api/v1/items/{identifier}']).toBe(1);
    expect(byRoute['POST /api/v1/items/bulk-update']).toBe(1);
    expect(await capability(h)).toBe(true);
    h.sandbox.resetCounters();
    await h.reconcile();
    expect(h.writes()).toBe(0);
  });

  it("refused (the document's five fields only): learnt once, the rest sent, game reported", async () => {
    const h = await openHarness();
    h.write('items/a.json', items('lol'));
    await h.reconcile();
    h.write('items/a.json', items('valorant', 'Renamed'));
    const { report } = await h.reconcile();
    expect(report.outcomes.find((o) => o.externalId === 'it-1')).toMatchObject({
      outcome: 'updated',
      fields: ['title'],
    });
    expect(stored(h, 'it-1')).toMatchObject({ game: 'lol', title: 'Renamed 1' });
    expect(await capability(h)).toBe(false);
    // From now on the planner knows: the game is reported, nothing is sent for it.
    h.sandbox.resetCounters();
    const next = await h.reconcile({ dryRun: true });
    expect(next.plan.actions.find((a) => 'externalId' in a && a.externalId === 'it-1')).toMatchObject({
      type: 'noop',
      reason: 'blocked',
      detail: 'the API cannot change game of an item: give it a new external_id to list it anew',
    });
    await h.reconcile();
    expect(h.writes()).toBe(0);
  });

  it('a change of game alone, refused, is reported blocked, and nothing else is sent', async () => {
    const h = await openHarness();
    h.write('items/a.json', items('lol'));
    await h.reconcile();
    h.write('items/a.json', items('valorant'));
    h.sandbox.resetCounters();
    const { report } = await h.reconcile();
    expect(report.outcomes.find((o) => o.externalId === 'it-1')).toMatchObject({
      outcome: 'blocked',
      fields: ['game'],
      message: 'the API cannot change game of an item: give it a new external_id to list it anew',
    });
    expect(requestsByRoute(h.sandbox)['PATCH /api/v1/items/{identifier}']).toBe(1);
    expect(stored(h, 'it-1')).toMatchObject({ game: 'lol' });
  });
});
