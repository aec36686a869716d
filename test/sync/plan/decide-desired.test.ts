// Planning stage 2 for an offer the catalogue wants, on one matched offer at a time: when a create looks first,
// when an offer is adopted, which changes an update carries and why, what is held back or blocked, and with
// which reason. plan/planner.test.ts has the same decisions through the whole planner.
import { describe, expect, it } from 'vitest';
import type { DesiredAccount, DesiredItem } from '../../../src/catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../../src/marketplace/marketplace-client.ts';
import type { OfferRecord } from '../../../src/state/records.ts';
import { UNKNOWN_CAPABILITIES } from '../../../src/capabilities/verdicts.ts';
import { type DesiredContext, decideDesired } from '../../../src/sync/plan/decide-desired.ts';
import type { MatchedOffer, Presence } from '../../../src/sync/plan/match.ts';
import type { CreateAction, NoopAction, PlanAction, UpdateAction } from '../../../src/sync/plan/plan-actions.ts';
import type { PlannerOptions } from '../../../src/sync/plan/planner-options.ts';
import { emptyKindSnapshot } from '../../../src/sync/plan/remote-snapshot.ts';
import { PLANNER_OPTIONS } from '../../support/planner-options.ts';
import { desiredAccount, desiredItem, imageRef, recordOf, remoteOffer } from '../../support/offers.ts';

const options: PlannerOptions = PLANNER_OPTIONS;
const img = imageRef('a');
// The one account and item these cases decide on: only the fields the live offers below echo.
const account = (fields: Partial<DesiredAccount['fields']> = {}, over: Partial<DesiredAccount> = {}): DesiredAccount =>
  desiredAccount('a1', {}, { hash: 'h1', fields: { title: 'A', price: 1000, ...fields }, ...over });
const item = (fields: Partial<DesiredItem['fields']> = {}): DesiredItem =>
  desiredItem('i1', {}, { hash: 'h1', fields: { title: 'I', price: 500, ...fields } });
const live = (fields: Record<string, unknown>, over: Partial<RemoteOffer> = {}): RemoteOffer =>
  remoteOffer('x', 7, { fields, ...over });
const stateOf = (d: DesiredAccount | DesiredItem, over: Partial<OfferRecord> = {}): OfferRecord =>
  recordOf(d, 7, { lastApplied: { ...d.fields, status: 'listed' }, ...over });
function decide(
  d: DesiredAccount | DesiredItem,
  m: { live?: RemoteOffer; state?: OfferRecord; presence?: Presence },
  ctx: Partial<DesiredContext> & { opts?: Partial<PlannerOptions> } = {},
): PlanAction[] {
  const matched: MatchedOffer = {
    key: `${d.kind}:${d.externalId}`,
    kind: d.kind,
    externalId: d.externalId,
    side: m.live ? 'both' : 'catalogue',
    desired: d,
    state: m.state,
    live: m.live,
    presence: m.presence ?? (m.live ? 'listed' : 'absent'),
  };
  return decideDesired(matched, d, {
    options: { ...options, ...ctx.opts },
    snapshot: ctx.snapshot ?? emptyKindSnapshot(),
    imageId: ctx.imageId ?? (() => undefined),
    interrupted: ctx.interrupted ?? false,
  });
}
const one = <T extends PlanAction>(actions: PlanAction[], type: T['type']): T => {
  const found = actions.filter((a) => a.type === type);
  expect(found).toHaveLength(1);
  return found[0] as T;
};
const summary = (actions: PlanAction[]) =>
  actions.map((a) => (a.type === 'noop' ? `noop:${a.reason}` : a.type === 'update' ? `update:${a.reason}` : a.type));

describe('decideDesired: creates', () => {
  it('a new offer: created without a look first, its status stated', () => {
    const c = one<CreateAction>(decide(item(), {}), 'create');
    expect(c).toMatchObject({ verifyFirst: false, reason: 'new in the catalogue', imagesPending: false });
    expect(c.fields.status).toBe('listed');
  });

  it.each([
    ['the list was incomplete', { snapshot: { ...emptyKindSnapshot(), complete: false } }, {}],
    ['the list was incremental', { snapshot: emptyKindSnapshot(false) }, {}],
    ['the state maps it (the list lost it)', {}, { state: stateOf(item()) }],
    ['an earlier create was interrupted', { interrupted: true }, {}],
  ] as const)('looks first when %s', (_name, ctx, m) => {
    expect(one<CreateAction>(decide(item(), m, ctx), 'create').verifyFirst).toBe(true);
  });

  it('an offer confirmed gone is created again without looking, saying so', () => {
    const c = one<CreateAction>(decide(item(), { state: stateOf(item()), presence: 'gone' }), 'create');
    expect(c).toMatchObject({ verifyFirst: false, reason: 'gone from the marketplace, still in the catalogue' });
    expect(one<CreateAction>(decide(item(), {}, { interrupted: true }), 'create').reason).toBe(
      'an earlier create was interrupted',
    );
  });

  it('an account whose gallery is not uploaded yet is created with its images pending', () => {
    const c = one<CreateAction>(decide(account({}, { images: [img] }), {}), 'create');
    expect(c.imagesPending).toBe(true);
    expect(c.fields.image_ids).toBeUndefined();
    const ready = one<CreateAction>(decide(account({}, { images: [img] }), {}, { imageId: () => 42 }), 'create');
    expect(ready).toMatchObject({ imagesPending: false, fields: { image_ids: [42] } });
  });

  it('an offer the check by id could not confirm is left for the next run', () => {
    const [n] = decide(item(), { state: stateOf(item()), presence: 'unconfirmed' }) as NoopAction[];
    expect(n).toMatchObject({
      type: 'noop',
      reason: 'unconfirmed',
      detail: 'missing from the list and the check by id failed: retried next run',
    });
  });
});

describe('decideDesired: held back', () => {
  const refused = (nextAttemptAt: number | null, hash = 'h1') =>
    new Map([
      [
        'item:i1',
        {
          kind: 'item',
          externalId: 'i1',
          hash,
          refusals: 2,
          status: 422,
          message: 'bad',
          lastRefusedAt: 1,
          nextAttemptAt,
        },
      ] as const,
    ]);

  it('an entry refused before waits out its backoff, naming the live offer', () => {
    const actions = decide(item(), { live: live({}) }, { opts: { backoffs: refused(5000), now: 1000 } });
    expect(actions).toEqual([expect.objectContaining({ type: 'noop', reason: 'backoff', remoteId: 7 })]);
    const created = decide(item(), {}, { opts: { backoffs: refused(5000), now: 1000 } });
    expect(created[0]).not.toHaveProperty('remoteId');
  });

  it('a parked entry stays parked; a changed entry or an elapsed backoff is sent', () => {
    expect(summary(decide(item(), {}, { opts: { backoffs: refused(null), now: 1000 } }))).toEqual(['noop:parked']);
    expect(summary(decide(item(), {}, { opts: { backoffs: refused(null, 'old'), now: 1000 } }))).toEqual(['create']);
    expect(summary(decide(item(), {}, { opts: { backoffs: refused(5000), now: 5000 } }))).toEqual(['create']);
  });
});

describe('decideDesired: live offers', () => {
  it('sold, refunded or processing: left alone, saying so', () => {
    const [n] = decide(item(), { live: live({}, { status: 'sold' }), state: stateOf(item()) }) as NoopAction[];
    expect(n).toMatchObject({
      reason: 'sold',
      remoteId: 7,
      detail: 'the marketplace marks it sold: offersync leaves it alone',
    });
  });

  it('state that maps another id: adopted, and every field the catalogue states compared with the live one', () => {
    const d = item({ price: 600 });
    const actions = decide(d, { live: live({ title: 'I', price: 500 }), state: stateOf(d, { remoteId: 99 }) });
    expect(summary(actions)).toEqual(['adopt', 'update:adopted']);
    expect(one(actions, 'adopt')).toMatchObject({ reason: 'found on the marketplace under its external_id' });
  });

  it('known and unchanged: one noop; adopted and unchanged: the adoption only', () => {
    const d = item();
    expect(summary(decide(d, { live: live({ title: 'I', price: 500 }), state: stateOf(d) }))).toEqual([
      'noop:unchanged',
    ]);
    expect(summary(decide(d, { live: live({ title: 'I', price: 500 }) }))).toEqual(['adopt']);
  });

  it('a field the server stores differently (lossy) is compared with last applied only', () => {
    const d = item({ title: 'Ünïcode' });
    const state = stateOf(d, { lossyFields: ['title'] });
    expect(summary(decide(d, { live: live({ title: 'Unicode', price: 500 }), state }))).toEqual(['noop:unchanged']);
  });

  it('reason changed when the catalogue changed, drift when only the website did', () => {
    const d = item({ price: 600 });
    const changed = one<UpdateAction>(
      decide(d, { live: live({ title: 'I', price: 500 }), state: stateOf(item()) }),
      'update',
    );
    expect(changed).toMatchObject({ reason: 'changed', changes: [{ field: 'price', why: 'changed' }] });
    const drift = one<UpdateAction>(
      decide(item(), { live: live({ title: 'I', price: 1 }), state: stateOf(item()) }),
      'update',
    );
    expect(drift).toMatchObject({ reason: 'drift', changes: [{ field: 'price', why: 'drift' }] });
    const both = decide(d, { live: live({ title: 'Web', price: 500 }), state: stateOf(item()) });
    expect(one<UpdateAction>(both, 'update').reason).toBe('changed');
  });

  it('a field never sent and not echoed (added to the catalogue since) makes the reason changed, not drift', () => {
    const d = item({ description: 'new words' });
    const u = one<UpdateAction>(
      decide(d, { live: live({ title: 'I', price: 500 }), state: stateOf(item()) }),
      'update',
    );
    expect(u).toMatchObject({ reason: 'changed', changes: [{ field: 'description', why: 'unsent' }] });
  });

  it('an archived offer the catalogue lists again is relisted', () => {
    const d = item();
    const u = one<UpdateAction>(
      decide(d, { live: live({ title: 'I', price: 500 }, { status: 'archived' }), state: stateOf(d) }),
      'update',
    );
    expect(u.reason).toBe('relist');
    expect(u.changes.map((c) => c.field)).toEqual(['status']);
    // The catalogue archiving it too: nothing to relist.
    const archived = item({ status: 'archived' });
    const none = decide(archived, {
      live: live({ title: 'I', price: 500 }, { status: 'archived' }),
      state: stateOf(archived),
    });
    expect(summary(none)).toEqual(['noop:unchanged']);
  });

  it('an offer archived on both sides with another field changed is updated as changed, not relisted', () => {
    const d = item({ status: 'archived', price: 600 });
    const u = one<UpdateAction>(
      decide(d, {
        live: live({ title: 'I', price: 500 }, { status: 'archived' }),
        state: stateOf(item({ status: 'archived' })),
      }),
      'update',
    );
    expect(u).toMatchObject({ reason: 'changed', changes: [{ field: 'price', from: 500, to: 600 }] });
  });

  it('an item stock the marketplace lowered by its sales is not sent back; one lowered by hand is', () => {
    const d = item({ stock: 5 });
    const sold = (soldCount: number) =>
      decide(d, {
        live: live({ title: 'I', price: 500, stock: 3 }, { soldCount }),
        state: stateOf(d, { soldCountAtSend: 4 }),
      });
    // Two more units sold since the stock was sent: the two missing units are those sold.
    expect(summary(sold(6))).toEqual(['noop:unchanged']);
    // No sale since: the website edited it, and the catalogue's stock wins.
    expect(one<UpdateAction>(sold(4), 'update').changes).toEqual([{ field: 'stock', from: 3, to: 5, why: 'drift' }]);
  });

  it('drift policy report: the website edits are reported, the catalogue changes still sent', () => {
    const d = item({ price: 600 });
    const actions = decide(
      d,
      { live: live({ title: 'Web', price: 500 }), state: stateOf(item()) },
      { opts: { drift: 'report' } },
    );
    expect(summary(actions)).toEqual(['noop:drift-reported', 'update:changed']);
    expect(one<NoopAction>(actions, 'noop')).toMatchObject({
      remoteId: 7,
      changes: [{ field: 'title', why: 'drift' }],
      detail: 'edited on the marketplace; drift policy is report',
    });
    expect(one<UpdateAction>(actions, 'update').changes.map((c) => c.field)).toEqual(['price']);
    // Only drift: reported, nothing sent, and no "unchanged" beside it.
    const onlyDrift = decide(
      item(),
      { live: live({ title: 'Web', price: 500 }), state: stateOf(item()) },
      { opts: { drift: 'report' } },
    );
    expect(summary(onlyDrift)).toEqual(['noop:drift-reported']);
    // Nothing drifted: no report.
    const clean = decide(
      d,
      { live: live({ title: 'I', price: 500 }), state: stateOf(item()) },
      { opts: { drift: 'report' } },
    );
    expect(summary(clean)).toEqual(['update:changed']);
  });

  it('an item field the API cannot change is blocked with its name; the rest is sent', () => {
    const d = item({ type: 'gold', price: 700 });
    const actions = decide(d, {
      live: live({ title: 'I', price: 500, type: 'skin' }),
      state: stateOf(item({ type: 'skin' })),
    });
    expect(summary(actions)).toEqual(['noop:blocked', 'update:changed']);
    expect(one<NoopAction>(actions, 'noop').detail).toBe(
      'the API cannot change type of an item: give it a new external_id to list it anew',
    );
    // Only that field: blocked, and not also "unchanged".
    const only = decide(item({ type: 'gold' }), {
      live: live({ title: 'I', price: 500, type: 'skin' }),
      state: stateOf(item({ type: 'skin' })),
    });
    expect(summary(only)).toEqual(['noop:blocked']);
  });

  it("an item's game is sent by PATCH unless the marketplace is known to refuse it there", () => {
    const was = { title: 'I', price: 500, game: 'lol' };
    const d = item({ ...was, game: 'valorant' });
    const sent = decide(d, { live: live(was), state: stateOf(item(was)) });
    expect(summary(sent)).toEqual(['update:changed']);
    expect(one<UpdateAction>(sent, 'update').changes.map((c) => c.field)).toEqual(['game']);
    const refused = decide(
      d,
      { live: live(was), state: stateOf(item(was)) },
      { opts: { capabilities: { ...UNKNOWN_CAPABILITIES, itemGameUpdate: 'unusable' } } },
    );
    expect(summary(refused)).toEqual(['noop:blocked']);
    expect(one<NoopAction>(refused, 'noop').detail).toBe(
      'the API cannot change game of an item: give it a new external_id to list it anew',
    );
  });

  it('each of the five fields the API lets a PATCH change is sent; two fixed fields are named together', () => {
    const was = { title: 'I', price: 500, stock: 1, status: 'listed', description: 'd', type: 'skin', server: 'euw' };
    const now = { title: 'J', price: 600, stock: 2, status: 'listed', description: 'e' };
    const sent = decide(item({ ...was, ...now }), { live: live(was), state: stateOf(item(was)) });
    expect(summary(sent)).toEqual(['update:changed']);
    const fields = one<UpdateAction>(sent, 'update').changes.map((c) => c.field);
    expect(fields.sort()).toEqual(['description', 'price', 'stock', 'title']);
    const fixed = decide(item({ ...was, type: 'gold', server: 'na' }), { live: live(was), state: stateOf(item(was)) });
    expect(one<NoopAction>(fixed, 'noop').detail).toBe(
      'the API cannot change server, type of an item: give it a new external_id to list it anew',
    );
  });
});

describe('decideDesired: accounts', () => {
  it('new credentials are sent with the update; the same ones are not', () => {
    const d = account({}, { credentialsHmac: 'new' });
    const l = live({ title: 'A', price: 1000 });
    const u = one<UpdateAction>(decide(d, { live: l, state: stateOf(d, { credentialsHmac: 'old' }) }), 'update');
    expect(u).toMatchObject({ sendCredentials: true, reason: 'changed', changes: [] });
    expect(summary(decide(d, { live: l, state: stateOf(d, { credentialsHmac: 'new' }) }))).toEqual(['noop:unchanged']);
    // Adopted: what the live offer holds is not known, so they are sent.
    expect(one<UpdateAction>(decide(d, { live: l }), 'update').sendCredentials).toBe(true);
  });

  it('a gallery not uploaded yet: the update sends the image ids once uploaded, nothing else about images', () => {
    const d = account({}, { images: [img] });
    const u = one<UpdateAction>(
      decide(d, { live: live({ title: 'A', price: 1000, image_ids: [1] }), state: stateOf(d) }),
      'update',
    );
    expect(u).toMatchObject({ sendImages: true, imagesPending: true, reason: 'changed' });
    expect(u.changes.map((c) => c.field)).not.toContain('image_ids');
    // Uploaded: image_ids is a change like any other.
    const ready = one<UpdateAction>(
      decide(d, { live: live({ title: 'A', price: 1000, image_ids: [1] }), state: stateOf(d) }, { imageId: () => 42 }),
      'update',
    );
    expect(ready).toMatchObject({ sendImages: false, imagesPending: false });
    expect(ready.changes.map((c) => c.field)).toEqual(['image_ids']);
  });

  it.each([
    ['PATCH served', { accountUpdate: 'usable' }, 'report', 'update', { via: 'patch', ifRefused: 'report' }],
    [
      'PATCH unknown, fallback recreate',
      { accountUpdate: 'unknown' },
      'recreate',
      'update',
      { via: 'patch', ifRefused: 'recreate' },
    ],
    ['PATCH refused, fallback report', { accountUpdate: 'unusable' }, 'report', 'blocked', null],
    [
      'PATCH refused, recreate unknown',
      { accountUpdate: 'unusable' },
      'recreate',
      'update',
      { via: 'recreate', ifRefused: 'report' },
    ],
    [
      'PATCH and recreate refused',
      { accountUpdate: 'unusable', accountRecreate: 'unusable' },
      'recreate',
      'blocked',
      null,
    ],
    [
      'PATCH served, recreate refused',
      { accountUpdate: 'usable', accountRecreate: 'unusable' },
      'recreate',
      'update',
      { via: 'patch', ifRefused: 'recreate' },
    ],
  ] as const)('routes an account update: %s', (_name, caps, updateFallback, expected, route) => {
    const d = account({ price: 2000 });
    const actions = decide(
      d,
      { live: live({ title: 'A', price: 1000 }), state: stateOf(account()) },
      {
        opts: { capabilities: { ...UNKNOWN_CAPABILITIES, ...caps }, updateFallback },
      },
    );
    if (expected === 'blocked') {
      const n = one<NoopAction>(actions, 'noop');
      expect(n).toMatchObject({ reason: 'blocked', remoteId: 7, changes: [{ field: 'price' }] });
      expect(n.detail).toMatch(/does not serve PATCH \/accounts\/\{id\}/);
    } else expect(one<UpdateAction>(actions, 'update').route).toEqual(route);
  });

  it('an item update is a plain PATCH whatever is known of the account routes', () => {
    const d = item({ price: 9 });
    const u = one<UpdateAction>(
      decide(
        d,
        { live: live({ title: 'I', price: 500 }), state: stateOf(item()) },
        {
          opts: { capabilities: { ...UNKNOWN_CAPABILITIES, accountUpdate: 'unusable', accountRecreate: 'unusable' } },
        },
      ),
      'update',
    );
    expect(u.route).toEqual({ via: 'patch', ifRefused: 'fail' });
  });
});
