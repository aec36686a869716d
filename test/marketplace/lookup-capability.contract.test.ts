// The lookup by path is a capability like the others: once the marketplace shows it does not
// serve GET /{kind}/{external_id} (an HTML page, a 404 for an offer its list holds, another offer), lookups
// go straight to the list; a path that answers is kept; the verdict is kept where the caller says.
import { afterEach, describe, expect, it } from 'vitest';
import type { CapabilityMemory } from '../../src/capabilities/memory.ts';
import { ext, type Sandbox, sandboxAndClient } from './support/contract.ts';
import { itemBody } from '../support/offers.ts';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

function byPathGets(sandbox: Sandbox): number {
  return Object.values(sandbox.counters().byRoute['GET /api/v1/items/{identifier}'] ?? {}).reduce((a, b) => a + b, 0);
}

function recording(): CapabilityMemory & { readonly verdicts: Map<string, [boolean, string | null]> } {
  const verdicts = new Map<string, [boolean, string | null]>();
  return {
    verdicts,
    usable: (name) => verdicts.get(name)?.[0],
    remember: (name, usable, detail) => void verdicts.set(name, [usable, detail]),
  };
}

describe('lookup by path as a capability', () => {
  it.each([
    ['an HTML page', { externalIdPathHtml: true }, /page that is not the API's/],
    ['a JSON 404 for an offer the list holds', { numericIdPathsOnly: true }, /did not find an offer the list holds/],
  ] as const)('%s: marked refused, the next lookups go straight to the list', async (_name, representation, why) => {
    const memory = recording();
    const sc = await sandboxAndClient({ representation }, { capabilities: memory });
    ({ close } = sc);
    const ids = [ext('it'), ext('it'), ext('it')];
    for (const id of ids) await sc.client.items.create(itemBody(id));
    sc.sandbox.resetCounters();
    for (const id of ids) expect((await sc.client.items.findByExternalId(id))?.externalId).toBe(id);
    expect(byPathGets(sc.sandbox)).toBe(1);
    expect(memory.verdicts.get('GET /items/{external_id}')).toEqual([false, expect.stringMatching(why)]);
  });

  it('a path that answers the offer is marked served and used', async () => {
    const memory = recording();
    const sc = await sandboxAndClient({}, { capabilities: memory });
    ({ close } = sc);
    const id = ext('it');
    await sc.client.items.create(itemBody(id));
    sc.sandbox.resetCounters();
    expect((await sc.client.items.findByExternalId(id))?.externalId).toBe(id);
    expect(sc.sandbox.counters().total).toBe(1);
    expect(memory.verdicts.get('GET /items/{external_id}')).toEqual([true, null]);
  });

  it('a refused list filter is remembered too: no filtered page before each scan', async () => {
    const memory = recording();
    const sc = await sandboxAndClient({ faults: { disabled: ['filterExternalId'] } }, { capabilities: memory });
    ({ close } = sc);
    await sc.client.items.create(itemBody(ext('other')));
    const ids = [ext('it'), ext('it')];
    for (const id of ids) await sc.client.items.create(itemBody(id));
    sc.sandbox.setRepresentation({ externalIdPathHtml: true });
    sc.sandbox.resetCounters();
    for (const id of ids) await sc.client.items.findByExternalId(id);
    expect(memory.verdicts.get('GET /items?filter[external_id]=')?.[0]).toBe(false);
    // First lookup: the path, then the "filtered" page (which holds it among others); second: one scan page.
    expect(sc.sandbox.counters().total).toBe(3);
  });
});
