// The planner as tables: an input picture (catalogue, state, remote, options) and the actions it must plan.
import { describe, expect, it } from 'vitest';
import type { DesiredOffer, OfferKind } from '../../../src/catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../../src/marketplace/marketplace-client.ts';
import type { Plan, PlanAction } from '../../../src/sync/plan/plan-actions.ts';
import { plan, type PlannerInput } from '../../../src/sync/plan/planner.ts';
import type { PlannerOptions } from '../../../src/sync/plan/planner-options.ts';
import { emptyKindSnapshot, type KindSnapshot, type RemoteSnapshot } from '../../../src/sync/plan/remote-snapshot.ts';
import { PLANNER_OPTIONS } from '../../support/planner-options.ts';
import { desiredAccount, desiredItem, desiredTopUp, offerRecord, recordOf, remoteOf } from '../../support/offers.ts';

const options: PlannerOptions = PLANNER_OPTIONS;

function snapshot(
  remote: RemoteOffer[] = [],
  kinds: Partial<Record<OfferKind, Partial<KindSnapshot>>> = {},
  extra: Partial<RemoteSnapshot> = {},
  byKind: Partial<Record<OfferKind, RemoteOffer[]>> = {},
): RemoteSnapshot {
  const make = (kind: OfferKind): KindSnapshot => {
    const list = byKind[kind] ?? (kind === 'account' ? remote : []);
    return { ...emptyKindSnapshot(), offers: new Map(list.map((r) => [r.externalId, r])), ...kinds[kind] };
  };
  return {
    kinds: { account: make('account'), item: make('item'), topup: make('topup') },
    gone: new Set(),
    unconfirmed: new Set(),
    ...extra,
  };
}
function input(over: Partial<PlannerInput> & { desired?: DesiredOffer[] }): PlannerInput {
  return {
    catalogue: {
      offers: over.desired ?? [],
      complete: true,
      quarantinedFiles: [],
      invalidOffers: [],
      ...over.catalogue,
    },
    state: over.state ?? [],
    remote: over.remote ?? snapshot(),
    uploadedImages: over.uploadedImages ?? new Map(),
    options: { ...options, ...over.options },
  };
}
/** Every action as type[:noop reason]:external_id (or image path), in plan order. */
const types = (p: Plan) =>
  p.actions.map(
    (a) => `${a.type}${a.type === 'noop' ? `:${a.reason}` : ''}:${'externalId' in a ? a.externalId : a.image.path}`,
  );
const only = <T extends PlanAction['type']>(p: Plan, t: T) =>
  p.actions.filter((a): a is Extract<PlanAction, { type: T }> => a.type === t);
/** The route of each write, as via[/batch][>ifRefused]:external_id. */
const routes = (p: Plan) =>
  p.actions.flatMap((a) => {
    if (a.type !== 'update' && a.type !== 'archive') return [];
    const r = a.route;
    const batch = 'batch' in r ? `/${r.batch}` : '';
    const refused = 'ifRefused' in r ? `>${r.ifRefused}` : '';
    return [`${a.type}:${r.via}${batch}${refused}:${a.externalId}`];
  });

const img = { path: 'images/a.png', absPath: '/c/images/a.png', sha256: 'abc', sizeBytes: 10, mimeType: 'image/png' };
const a1 = desiredAccount('a1');
const old = desiredAccount('a1', { price: 1000 });
const thirty = Array.from({ length: 30 }, (_, i) => desiredAccount(`a${String(i).padStart(2, '0')}`));
const massBase = {
  desired: [],
  state: thirty.map((d, i) => recordOf(d, i + 1)),
  remote: snapshot(thirty.map((d, i) => remoteOf(d, i + 1))),
};
const caps = (c: Partial<PlannerOptions['capabilities']>): PlannerOptions => ({
  ...options,
  capabilities: { ...options.capabilities, ...c },
});

interface Case {
  readonly name: string;
  readonly input: PlannerInput;
  /** The whole plan, as `types` prints it. */
  readonly actions?: readonly string[];
  readonly check?: (p: Plan) => void;
}

const decisions: readonly Case[] = [
  {
    name: 'creates a new offer, stating the default status',
    input: input({ desired: [a1] }),
    actions: ['create:a1'],
    check: (p) => expect(only(p, 'create')[0]).toMatchObject({ fields: { status: 'listed' }, verifyFirst: false }),
  },
  {
    name: 'plans nothing when desired, state and remote agree (file formatting does not matter)',
    input: (() => {
      const d = desiredAccount('a1', { champions: ['Ahri', 'Lux'] });
      return input({ desired: [d], state: [recordOf(d, 1)], remote: snapshot([remoteOf(d, 1)]) });
    })(),
    actions: ['noop:unchanged:a1'],
  },
  {
    name: 'patches only the changed echoed field',
    input: input({
      desired: [desiredAccount('a1', { price: 1200 })],
      state: [recordOf(old, 1)],
      remote: snapshot([remoteOf(old, 1)]),
    }),
    actions: ['update:a1'],
    check: (p) =>
      expect(only(p, 'update')[0]).toMatchObject({
        changes: [{ field: 'price', from: 1000, to: 1200, why: 'changed' }],
        reason: 'changed',
      }),
  },
  {
    name: 'patches a changed non-echoed field by comparing with last applied (item description)',
    input: (() => {
      const o = desiredItem('i1', { description: 'old words' });
      const remote = snapshot([], {}, {}, { item: [remoteOf(o, 7)] });
      return input({ desired: [desiredItem('i1', { description: 'new words' })], state: [recordOf(o, 7)], remote });
    })(),
    actions: ['update:i1'],
    check: (p) =>
      expect(only(p, 'update')[0]!.changes).toEqual([
        { field: 'description', from: 'old words', to: 'new words', why: 'changed' },
      ]),
  },
  {
    name: 'sends credentials when their HMAC changed',
    input: (() => {
      const d = desiredAccount('a1', {}, { credentialsHmac: 'new', credentials: { login: 'l', password: 'p' } });
      return input({
        desired: [d],
        state: [recordOf(d, 1, { credentialsHmac: 'old' })],
        remote: snapshot([remoteOf(d, 1)]),
      });
    })(),
    actions: ['update:a1'],
    check: (p) => expect(only(p, 'update')[0]).toMatchObject({ sendCredentials: true, changes: [] }),
  },
  {
    name: 'does not send credentials whose HMAC is unchanged',
    input: (() => {
      const d = desiredAccount('a1', {}, { credentialsHmac: 'new', credentials: { login: 'l', password: 'p' } });
      return input({ desired: [d], state: [recordOf(d, 1)], remote: snapshot([remoteOf(d, 1)]) });
    })(),
    actions: ['noop:unchanged:a1'],
  },
  {
    name: 'archives a managed offer removed from the catalogue, leaves an unmanaged one',
    input: input({
      state: [recordOf(a1, 1)],
      remote: snapshot([remoteOf(a1, 1), remoteOf(desiredAccount('web-1'), 2)]),
    }),
    actions: ['noop:unmanaged:web-1', 'archive:a1'],
  },
  {
    name: 'archives an unmanaged offer with prune: all',
    input: input({ remote: snapshot([remoteOf(desiredAccount('inv-9'), 2)]), options: { ...options, prune: 'all' } }),
    actions: ['archive:inv-9'],
  },
  {
    name: 'archives an unmanaged offer that matches the ownership pattern',
    input: input({
      remote: snapshot([remoteOf(desiredAccount('inv-9'), 2)]),
      options: { ...options, ownedPattern: /^inv-/ },
    }),
    actions: ['archive:inv-9'],
  },
  {
    name: 'archives nothing with prune: none, managed or not',
    input: input({
      state: [recordOf(a1, 1)],
      remote: snapshot([remoteOf(a1, 1), remoteOf(desiredAccount('inv-9'), 2)]),
      options: { ...options, prune: 'none', ownedPattern: /^inv-/ },
    }),
    actions: ['noop:unmanaged:a1', 'noop:unmanaged:inv-9'],
  },
  ...(['sold', 'refunded', 'processing'] as const).flatMap((status): Case[] => [
    {
      name: `never touches a ${status} offer in the catalogue`,
      input: input({
        desired: [desiredAccount('a1', { price: 9999 })],
        state: [recordOf(old, 1)],
        remote: snapshot([remoteOf(old, 1, { status })]),
      }),
      actions: [`noop:${status}:a1`],
    },
    {
      name: `never archives a ${status} offer removed from the catalogue`,
      input: input({ state: [recordOf(old, 1)], remote: snapshot([remoteOf(old, 1, { status })]) }),
      actions: [`noop:${status}:a1`],
    },
  ]),
  {
    name: 'relists an offer archived on the marketplace while still in the catalogue',
    input: input({
      desired: [a1],
      state: [recordOf(a1, 1)],
      remote: snapshot([remoteOf(a1, 1, { status: 'archived' })]),
    }),
    actions: ['update:a1'],
    check: (p) =>
      expect(only(p, 'update')[0]).toMatchObject({
        reason: 'relist',
        changes: [{ field: 'status', from: 'archived', to: 'listed', why: 'drift' }],
      }),
  },
  {
    name: 'patches back a website edit under local-wins',
    input: input({
      desired: [a1],
      state: [recordOf(a1, 1)],
      remote: snapshot([remoteOf(a1, 1, {}, { title: 'edited on the website' })]),
    }),
    actions: ['update:a1'],
    check: (p) =>
      expect(only(p, 'update')[0]).toMatchObject({
        reason: 'drift',
        changes: [{ field: 'title', from: 'edited on the website', to: 'Account a1', why: 'drift' }],
      }),
  },
  {
    name: 'only reports a website edit under drift: report',
    input: input({
      desired: [a1],
      state: [recordOf(a1, 1)],
      remote: snapshot([remoteOf(a1, 1, {}, { title: 'edited on the website' })]),
      options: { ...options, drift: 'report' },
    }),
    actions: ['noop:drift-reported:a1'],
  },
  {
    name: 'adopts everything and creates nothing when the state db is lost',
    input: input({
      desired: [a1, desiredAccount('a2')],
      remote: snapshot([remoteOf(a1, 1), remoteOf(desiredAccount('a2'), 2)]),
    }),
    actions: ['adopt:a1', 'adopt:a2'],
  },
  {
    name: 'leaves the offers of a quarantined file alone: neither updated nor archived',
    input: input({
      catalogue: { offers: [], complete: true, quarantinedFiles: ['accounts/a.json'], invalidOffers: [] },
      state: [recordOf(a1, 1)],
      remote: snapshot([remoteOf(a1, 1)]),
    }),
    actions: ['noop:quarantined:a1'],
  },
  {
    name: 'does not archive an offer whose catalogue entry is invalid',
    input: input({
      catalogue: {
        offers: [],
        complete: true,
        quarantinedFiles: [],
        invalidOffers: [{ kind: 'account', externalId: 'a1', file: 'accounts/a.json' }],
      },
      state: [recordOf(a1, 1)],
      remote: snapshot([remoteOf(a1, 1)]),
    }),
    actions: ['noop:invalid:a1'],
  },
  {
    name: 'does not plan an update again for a field recorded as lossy',
    input: (() => {
      const d = desiredAccount('a1', { current_rank: 4 });
      return input({
        desired: [d],
        state: [recordOf(d, 1, { lossyFields: ['current_rank'] })],
        remote: snapshot([remoteOf(d, 1, {}, { current_rank: 'gold' })]),
      });
    })(),
    actions: ['noop:unchanged:a1'],
  },
  {
    name: 'plans no archive at all when a list page failed, and says why',
    input: input({
      state: [recordOf(a1, 1)],
      remote: snapshot([remoteOf(a1, 1)], { account: { complete: false, error: 'page 3: 503' } }),
    }),
    actions: ['noop:blocked:a1'],
    check: (p) => expect(p.archiveSuppressed.join()).toMatch(/page 3: 503/),
  },
  {
    name: 'plans no archive at all when the catalogue could not be read completely',
    input: input({
      catalogue: { offers: [], complete: false, quarantinedFiles: [], invalidOffers: [] },
      state: [recordOf(a1, 1)],
      remote: snapshot([remoteOf(a1, 1)]),
    }),
    actions: ['noop:blocked:a1'],
    check: (p) => expect(p.archiveSuppressed).toHaveLength(1),
  },
  {
    name: 'warns of an external_id the marketplace lists twice',
    input: input({ remote: snapshot([], { account: { duplicates: ['a1'] } }) }),
    actions: [],
    check: (p) => expect(p.warnings.join()).toMatch(/lists account 'a1' more than once/),
  },
  {
    name: 'forgets an offer a GET confirmed gone',
    input: input({ state: [recordOf(a1, 1)], remote: snapshot([], {}, { gone: new Set(['account:a1']) }) }),
    actions: ['noop:gone:a1'],
  },
  {
    name: 'never takes an unconfirmed offer for gone',
    input: input({ state: [recordOf(a1, 1)], remote: snapshot([], {}, { unconfirmed: new Set(['account:a1']) }) }),
    actions: ['noop:unconfirmed:a1'],
  },
  {
    name: 'neither creates nor updates an unconfirmed offer still in the catalogue',
    input: input({
      desired: [a1],
      state: [recordOf(a1, 1)],
      remote: snapshot([], {}, { unconfirmed: new Set(['account:a1']) }),
    }),
    actions: ['noop:unconfirmed:a1'],
  },
  {
    name: 're-creates an offer confirmed gone while still in the catalogue, without looking first',
    input: input({
      desired: [a1],
      state: [recordOf(a1, 1)],
      remote: snapshot([], {}, { gone: new Set(['account:a1']) }),
    }),
    actions: ['create:a1'],
    check: (p) =>
      expect(only(p, 'create')[0]).toMatchObject({ verifyFirst: false, reason: expect.stringMatching(/gone/) }),
  },
  {
    name: 'looks up first a create when the list was incomplete',
    input: input({ desired: [a1], remote: snapshot([], { account: { complete: false } }) }),
    actions: ['create:a1'],
    check: (p) => expect(only(p, 'create')[0]!.verifyFirst).toBe(true),
  },
  {
    name: 'looks up first a create when the list was incremental',
    input: input({ desired: [a1], remote: snapshot([], { account: { full: false } }) }),
    actions: ['create:a1'],
    check: (p) => expect(only(p, 'create')[0]!.verifyFirst).toBe(true),
  },
  {
    name: 'looks up first a create that a crash interrupted (plan does not settle the journal)',
    input: { ...input({ desired: [a1] }), interruptedCreates: new Set(['account:a1']) },
    actions: ['create:a1'],
    check: (p) =>
      expect(only(p, 'create')[0]).toMatchObject({ verifyFirst: true, reason: 'an earlier create was interrupted' }),
  },
  {
    name: 'an incremental snapshot trusts the state for offers it did not return',
    input: input({
      desired: [a1],
      state: [recordOf(a1, 1), recordOf(desiredAccount('a2'), 2)],
      remote: snapshot([], { account: { full: false } }),
    }),
    actions: ['noop:unchanged:a1', 'archive:a2'],
  },
  {
    name: 'item updates carry only the five allowed fields; others are reported blocked',
    input: (() => {
      const o = desiredItem('i1', { price: 500, type: 'gold' });
      return input({
        desired: [desiredItem('i1', { price: 700, type: 'skin' })],
        state: [recordOf(o, 3)],
        remote: snapshot([], {}, {}, { item: [remoteOf(o, 3)] }),
      });
    })(),
    actions: ['noop:blocked:i1', 'update:i1'],
    check: (p) => expect(only(p, 'update')[0]!.changes.map((c) => c.field)).toEqual(['price']),
  },
  {
    name: 'uploads a new gallery image once, before the creates that need it',
    input: input({
      desired: [desiredAccount('a1', {}, { images: [img] }), desiredAccount('a2', {}, { images: [img] })],
    }),
    actions: ['upload:images/a.png', 'create:a1', 'create:a2'],
    check: (p) => {
      expect(only(p, 'upload')[0]!.neededBy).toEqual(['a1', 'a2']);
      expect(only(p, 'create')[0]).toMatchObject({ imagesPending: true });
      expect(only(p, 'create')[0]!.fields.image_ids).toBeUndefined();
    },
  },
  {
    name: 'resolves image_ids of already uploaded images and sees no change when they match',
    input: (() => {
      const d = desiredAccount('a1', {}, { images: [img] });
      return input({
        desired: [d],
        state: [recordOf(d, 1, { lastApplied: { ...d.fields, status: 'listed', image_ids: [42] } })],
        remote: snapshot([remoteOf(d, 1, {}, { image_ids: [42] })]),
        uploadedImages: new Map([['abc', 42]]),
      });
    })(),
    actions: ['noop:unchanged:a1'],
  },
  {
    name: 'plans nothing for an offer already archived on the marketplace and gone from the catalogue',
    input: input({ state: [recordOf(a1, 1)], remote: snapshot([remoteOf(a1, 1, { status: 'archived' })]) }),
    actions: [],
  },
  {
    name: 'plans nothing for a state row that never got a marketplace id (incremental list)',
    input: input({ state: [recordOf(a1, 1, { remoteId: null })], remote: snapshot([], { account: { full: false } }) }),
    actions: [],
  },
  {
    name: 'sends an item stock and status change (PATCH /items allows them)',
    input: (() => {
      const o = desiredItem('i1', { stock: 1, status: 'listed' });
      return input({
        desired: [desiredItem('i1', { stock: 9, status: 'paused' })],
        state: [recordOf(o, 3)],
        remote: snapshot([], {}, {}, { item: [remoteOf(o, 3)] }),
      });
    })(),
    actions: ['update:i1'],
    check: (p) => expect(only(p, 'update')[0]!.changes.map((c) => c.field)).toEqual(['status', 'stock']),
  },
  {
    name: 'top-ups archive like the others',
    input: input({
      state: [recordOf(desiredTopUp('t1'), 5)],
      remote: snapshot([], {}, {}, { topup: [remoteOf(desiredTopUp('t1'), 5)] }),
    }),
    actions: ['archive:t1'],
  },
];

/** Routes: the planner picks the way each write goes, by kind and by what the state db knows. */
const routing: readonly (Case & { readonly routes: readonly string[] })[] = [
  {
    name: 'an account update is a PATCH that falls back as configured (report)',
    input: input({
      desired: [desiredAccount('a1', { price: 1200 })],
      state: [recordOf(old, 1)],
      remote: snapshot([remoteOf(old, 1)]),
    }),
    routes: ['update:patch>report:a1'],
  },
  {
    name: 'an account update while PATCH is unknown falls back to recreate when configured',
    input: input({
      desired: [desiredAccount('a1', { price: 1200 })],
      state: [recordOf(old, 1)],
      remote: snapshot([remoteOf(old, 1)]),
      options: { ...caps({ accountUpdate: 'unknown' }), updateFallback: 'recreate' },
    }),
    routes: ['update:patch>recreate:a1'],
  },
  {
    name: 'an account update is blocked when PATCH is not served and the fallback is report',
    input: input({
      desired: [desiredAccount('a1', { price: 1200 })],
      state: [recordOf(old, 1)],
      remote: snapshot([remoteOf(old, 1)]),
      options: caps({ accountUpdate: 'unusable' }),
    }),
    actions: ['noop:blocked:a1'],
    routes: [],
    check: (p) => expect(only(p, 'noop')[0]!.detail).toMatch(/updateFallback: recreate/),
  },
  {
    name: 'an account update is a recreate when PATCH is not served and the fallback is recreate',
    input: input({
      desired: [desiredAccount('a1', { price: 1200 })],
      state: [recordOf(old, 1)],
      remote: snapshot([remoteOf(old, 1)]),
      options: { ...caps({ accountUpdate: 'unusable' }), updateFallback: 'recreate' },
    }),
    routes: ['update:recreate>report:a1'],
  },
  {
    name: 'an account update is blocked when neither PATCH nor a recreate is served',
    input: input({
      desired: [desiredAccount('a1', { price: 1200 })],
      state: [recordOf(old, 1)],
      remote: snapshot([remoteOf(old, 1)]),
      options: { ...caps({ accountUpdate: 'unusable', accountRecreate: 'unusable' }), updateFallback: 'recreate' },
    }),
    actions: ['noop:blocked:a1'],
    routes: [],
    check: (p) => expect(only(p, 'noop')[0]!.detail).toMatch(/cannot be re-created either/),
  },
  {
    name: 'an item update is a PATCH whose refusal is a failure',
    input: (() => {
      const o = desiredItem('i1');
      return input({
        desired: [desiredItem('i1', { price: 900 })],
        state: [recordOf(o, 3)],
        remote: snapshot([], {}, {}, { item: [remoteOf(o, 3)] }),
      });
    })(),
    routes: ['update:patch>fail:i1'],
  },
  {
    name: 'a single top-up update goes by PATCH, not in bulk',
    input: input({
      desired: [desiredTopUp('t1', { price: 301 })],
      state: [recordOf(desiredTopUp('t1'), 5)],
      remote: snapshot([], {}, {}, { topup: [remoteOf(desiredTopUp('t1'), 5)] }),
    }),
    routes: ['update:patch>fail:t1'],
  },
  {
    name: 'top-up updates travel in bulk-update batches of the configured size',
    input: (() => {
      const ts = ['t1', 't2', 't3'].map((t) => desiredTopUp(t, { price: 300 }));
      return input({
        desired: ts.map((t) => desiredTopUp(t.externalId, { price: 999 })),
        state: ts.map((t, i) => recordOf(t, i + 1)),
        remote: snapshot([], {}, {}, { topup: ts.map((t, i) => remoteOf(t, i + 1)) }),
        options: { ...options, bulk: { removeSize: 100, topUpUpdateSize: 2, itemUpdateSize: 100 } },
      });
    })(),
    routes: ['update:bulk-update/0>patch:t1', 'update:bulk-update/0>patch:t2', 'update:bulk-update/1>patch:t3'],
  },
  {
    name: 'a top-up update of a field bulk routes may ignore (unit, image) goes by its PATCH, the rest in bulk',
    input: (() => {
      const ts = ['t1', 't2', 't3', 't4'].map((t) => desiredTopUp(t, { price: 300 }));
      const next = [
        desiredTopUp('t1', { price: 999 }),
        desiredTopUp('t2', { price: 300, offer_title: 'Renamed', offer_amount: 12 }),
        desiredTopUp('t3', { price: 999, offer_unit: 'crystals' }),
        desiredTopUp('t4', { price: 300, image: 'https://img/4.png' }),
      ];
      return input({
        desired: next,
        state: ts.map((t, i) => recordOf(t, i + 1)),
        remote: snapshot([], {}, {}, { topup: ts.map((t, i) => remoteOf(t, i + 1)) }),
      });
    })(),
    routes: [
      // Prices before the rest (plan/money-rank.ts): t2 changes its title and amount only.
      'update:bulk-update/0>patch:t1',
      'update:patch>fail:t3',
      'update:bulk-update/0>patch:t2',
      'update:patch>fail:t4',
    ],
  },
  {
    name: "item updates travel in batches of the item size, not the top-ups'",
    input: (() => {
      const is = ['i1', 'i2', 'i3'].map((i) => desiredItem(i, { price: 300 }));
      return input({
        desired: is.map((i) => desiredItem(i.externalId, { price: 999 })),
        state: is.map((i, n) => recordOf(i, n + 1)),
        remote: snapshot([], {}, {}, { item: is.map((i, n) => remoteOf(i, n + 1)) }),
        options: { ...options, bulk: { removeSize: 100, topUpUpdateSize: 100, itemUpdateSize: 2 } },
      });
    })(),
    routes: ['update:bulk-update/0>patch:i1', 'update:bulk-update/0>patch:i2', 'update:bulk-update/1>patch:i3'],
  },
  ...(
    [
      ['bulk-update', 'the item size', {}, { removeSize: 100, topUpUpdateSize: 100, itemUpdateSize: 2 }],
      [
        'bulk-remove',
        'the remove size',
        { itemBulkUpdate: 'unusable' },
        { removeSize: 2, topUpUpdateSize: 100, itemUpdateSize: 100 },
      ],
    ] as const
  ).map(([via, size, refused, bulk]): Case & { readonly routes: readonly string[] } => ({
    name: `item archives by ${via} travel in batches of ${size}`,
    input: (() => {
      const is = ['i1', 'i2', 'i3'].map((i) => desiredItem(i));
      return input({
        state: is.map((i, n) => recordOf(i, n + 1)),
        remote: snapshot([], {}, {}, { item: is.map((i, n) => remoteOf(i, n + 1)) }),
        options: { ...caps(refused), bulk },
      });
    })(),
    routes: [`archive:${via}/0>single:i1`, `archive:${via}/0>single:i2`, `archive:${via}/1>single:i3`],
  })),
  {
    name: 'top-up updates go one by one once bulk-update is known refused',
    input: (() => {
      const ts = ['t1', 't2'].map((t) => desiredTopUp(t, { price: 300 }));
      return input({
        desired: ts.map((t) => desiredTopUp(t.externalId, { price: 999 })),
        state: ts.map((t, i) => recordOf(t, i + 1)),
        remote: snapshot([], {}, {}, { topup: ts.map((t, i) => remoteOf(t, i + 1)) }),
        options: caps({ topUpBulkUpdate: 'unusable' }),
      });
    })(),
    routes: ['update:patch>fail:t1', 'update:patch>fail:t2'],
  },
  {
    name: 'archives: accounts in bulk-remove batches, top-ups in bulk-update batches, items one by one',
    input: (() => {
      const gone = [
        desiredAccount('a1'),
        desiredAccount('a2'),
        desiredAccount('a3'),
        desiredItem('i1'),
        desiredTopUp('t1'),
        desiredTopUp('t2'),
      ];
      return input({
        state: gone.map((d, i) => recordOf(d, i + 1)),
        remote: snapshot(
          [],
          {},
          {},
          {
            account: gone.filter((d) => d.kind === 'account').map((d) => remoteOf(d, gone.indexOf(d) + 1)),
            item: [remoteOf(gone[3]!, 4)],
            topup: [remoteOf(gone[4]!, 5), remoteOf(gone[5]!, 6)],
          },
        ),
        options: { ...options, bulk: { removeSize: 2, topUpUpdateSize: 100, itemUpdateSize: 100 } },
      });
    })(),
    routes: [
      'archive:bulk-remove/0>single:a1',
      'archive:bulk-remove/0>single:a2',
      'archive:bulk-remove/1>single:a3',
      'archive:single:i1',
      'archive:bulk-update/0>single:t1',
      'archive:bulk-update/0>single:t2',
    ],
  },
  {
    name: 'a single account archive, or any once bulk-remove is known refused, goes by DELETE',
    input: input({
      state: [recordOf(a1, 1), recordOf(desiredAccount('a2'), 2)],
      remote: snapshot([remoteOf(a1, 1), remoteOf(desiredAccount('a2'), 2)]),
      options: caps({ accountBulkRemove: 'unusable' }),
    }),
    routes: ['archive:single:a1', 'archive:single:a2'],
  },
  {
    name: 'one top-up update among other writes still goes by PATCH',
    input: input({
      desired: [desiredTopUp('t1', { price: 301 }), desiredAccount('a9')],
      state: [recordOf(desiredTopUp('t1'), 5)],
      remote: snapshot([], {}, {}, { topup: [remoteOf(desiredTopUp('t1'), 5)] }),
    }),
    routes: ['update:patch>fail:t1'],
  },
  {
    name: 'one account archive beside an item archive still goes by DELETE',
    input: input({
      state: [recordOf(a1, 1), recordOf(desiredItem('i1'), 2)],
      remote: snapshot([remoteOf(a1, 1)], {}, {}, { item: [remoteOf(desiredItem('i1'), 2)] }),
    }),
    routes: ['archive:single:a1', 'archive:single:i1'],
  },
  {
    name: 'one top-up update beside an item update and a top-up create still goes by PATCH',
    input: input({
      desired: [desiredTopUp('t1', { price: 301 }), desiredItem('i1', { price: 302 }), desiredTopUp('t9')],
      state: [recordOf(desiredTopUp('t1'), 5), recordOf(desiredItem('i1'), 6)],
      remote: snapshot(
        [],
        {},
        {},
        { topup: [remoteOf(desiredTopUp('t1'), 5)], item: [remoteOf(desiredItem('i1'), 6)] },
      ),
    }),
    routes: ['update:patch>fail:t1', 'update:patch>fail:i1'],
  },
  {
    name: 'top-up updates in bulk leave the item update beside them a PATCH',
    input: input({
      desired: [
        desiredTopUp('t1', { price: 301 }),
        desiredTopUp('t2', { price: 303 }),
        desiredItem('i1', { price: 302 }),
      ],
      state: [recordOf(desiredTopUp('t1'), 5), recordOf(desiredTopUp('t2'), 7), recordOf(desiredItem('i1'), 6)],
      remote: snapshot(
        [],
        {},
        {},
        {
          topup: [remoteOf(desiredTopUp('t1'), 5), remoteOf(desiredTopUp('t2'), 7)],
          item: [remoteOf(desiredItem('i1'), 6)],
        },
      ),
    }),
    routes: ['update:bulk-update/0>patch:t1', 'update:bulk-update/0>patch:t2', 'update:patch>fail:i1'],
  },
  {
    name: 'a top-up create before the top-up updates takes no place in their bulk batches',
    input: input({
      desired: [desiredTopUp('t9'), desiredTopUp('t1', { price: 301 }), desiredTopUp('t2', { price: 303 })],
      state: [recordOf(desiredTopUp('t1'), 5), recordOf(desiredTopUp('t2'), 7)],
      remote: snapshot([], {}, {}, { topup: [remoteOf(desiredTopUp('t1'), 5), remoteOf(desiredTopUp('t2'), 7)] }),
      options: { ...options, bulk: { removeSize: 100, topUpUpdateSize: 2, itemUpdateSize: 100 } },
    }),
    routes: ['update:bulk-update/0>patch:t1', 'update:bulk-update/0>patch:t2'],
  },
  {
    name: 'one account archive beside two item archives still goes by DELETE; the items by their bulk-update',
    input: input({
      state: [recordOf(a1, 1), recordOf(desiredItem('i1'), 2), recordOf(desiredItem('i2'), 3)],
      remote: snapshot(
        [remoteOf(a1, 1)],
        {},
        {},
        { item: [remoteOf(desiredItem('i1'), 2), remoteOf(desiredItem('i2'), 3)] },
      ),
    }),
    routes: ['archive:single:a1', 'archive:bulk-update/0>single:i1', 'archive:bulk-update/0>single:i2'],
  },
  {
    name: 'item archives go by bulk-remove once item bulk-update is known refused, one by one once both are',
    input: input({
      state: [
        recordOf(desiredItem('i1'), 2),
        recordOf(desiredItem('i2'), 3),
        recordOf(desiredTopUp('t1'), 4),
        recordOf(desiredTopUp('t2'), 5),
      ],
      remote: snapshot(
        [],
        {},
        {},
        {
          item: [remoteOf(desiredItem('i1'), 2), remoteOf(desiredItem('i2'), 3)],
          topup: [remoteOf(desiredTopUp('t1'), 4), remoteOf(desiredTopUp('t2'), 5)],
        },
      ),
      options: caps({ itemBulkUpdate: 'unusable', topUpBulkUpdate: 'unusable', topUpBulkRemove: 'unusable' }),
    }),
    routes: [
      'archive:bulk-remove/0>single:i1',
      'archive:bulk-remove/0>single:i2',
      'archive:single:t1',
      'archive:single:t2',
    ],
  },
  {
    name: 'a single account archive goes by DELETE, not in bulk',
    input: input({ state: [recordOf(a1, 1)], remote: snapshot([remoteOf(a1, 1)]) }),
    routes: ['archive:single:a1'],
  },
  {
    name: 'two top-up archives go in one bulk-update batch unless the route is known refused',
    input: input({
      state: [recordOf(desiredTopUp('t1'), 1), recordOf(desiredTopUp('t2'), 2)],
      remote: snapshot([], {}, {}, { topup: [remoteOf(desiredTopUp('t1'), 1), remoteOf(desiredTopUp('t2'), 2)] }),
      options: caps({ topUpBulkUpdate: 'unusable', topUpBulkRemove: 'unusable' }),
    }),
    routes: ['archive:single:t1', 'archive:single:t2'],
  },
  {
    name: 'a create found already listed is aligned by the route an update would take',
    input: input({
      desired: [a1],
      remote: snapshot([], { account: { complete: false } }),
      options: caps({ accountUpdate: 'unusable' }),
    }),
    routes: [],
    check: (p) => expect(only(p, 'create')[0]!.alignRoute).toEqual({ via: 'patch', ifRefused: 'report' }),
  },
];

/** The mass-archive guard inside a plan: counted on the archives planned, against the managed offers. */
const guard: readonly Case[] = [
  {
    name: 'trips above half of the managed offers, below max(25, 10%), with a message naming the rule',
    input: input(massBase),
    check: (p) => {
      expect(p.guard).toMatchObject({ tripped: true, archives: 30, limit: 15, rule: 'half' });
      expect(p.guard.message).toMatch(/archive 30 of 30 managed offers, more than half of them/);
      expect(p.guard.message).toMatch(/The catalogue came out empty/);
      expect(p.guard.message).toMatch(/--allow-mass-archive/);
    },
  },
  {
    name: '--allow-mass-archive lets it through',
    input: input({ ...massBase, options: { ...options, allowMassArchive: true } }),
    check: (p) => expect(p.guard.tripped).toBe(false),
  },
  {
    name: 'a configured guard.maxArchive below half is the limit',
    input: input({ ...massBase, options: { ...options, guard: { ...options.guard, maxArchive: 10 } } }),
    check: (p) => {
      expect(p.guard).toMatchObject({ tripped: true, limit: 10, rule: 'half' });
      expect(p.guard.message).toMatch(/more than half/);
    },
  },
  {
    name: 'a configured guard.maxArchive above half does not lift the half rule',
    input: input({ ...massBase, options: { ...options, guard: { ...options.guard, maxArchive: 40 } } }),
    check: (p) => expect(p.guard).toMatchObject({ tripped: true, limit: 15, rule: 'half' }),
  },
  {
    name: 'counts an update to status archived as an archive, and names it among those held',
    input: input({
      ...massBase,
      desired: thirty.map((d) => desiredAccount(d.externalId, { status: 'archived' }, { hash: 'archived' })),
    }),
    check: (p) => {
      expect(only(p, 'update')).toHaveLength(30);
      // 30 of 30 managed: the half rule stops it first.
      expect(p.guard).toMatchObject({ tripped: true, archives: 30, limit: 15, rule: 'half' });
      expect(p.guard.held).toHaveLength(30);
    },
  },
  {
    name: 'does not count an update that leaves the status as it is',
    input: input({
      ...massBase,
      desired: thirty.map((d) => desiredAccount(d.externalId, { price: 2000 }, { hash: 'p' })),
    }),
    check: (p) => {
      expect(only(p, 'update')).toHaveLength(30);
      expect(p.guard).toMatchObject({ tripped: false, archives: 0 });
    },
  },
  {
    name: 'does not count offers already archived as managed',
    input: input({
      ...massBase,
      state: thirty.map((d, i) => recordOf(d, i + 1, { remoteStatus: i < 29 ? 'listed' : 'archived' })),
      options: { ...options, guard: { maxArchive: null, maxArchivePercent: 100, maxArchiveMin: 0 } },
    }),
    check: (p) => expect(p.guard).toMatchObject({ tripped: true, archives: 30, limit: 14 }),
  },
];

describe('planner: decisions', () => {
  it.each(decisions)('$name', async ({ input: i, actions, check }) => {
    const p = await plan(i);
    if (actions) expect(types(p)).toEqual(actions);
    check?.(p);
  });
});

describe('planner: routes', () => {
  it.each(routing)('$name', async ({ input: i, actions, routes: expected, check }) => {
    const p = await plan(i);
    if (actions) expect(types(p)).toEqual(actions);
    expect(routes(p)).toEqual(expected);
    check?.(p);
  });
});

describe('planner: mass-archive guard', () => {
  it.each(guard)('$name', async ({ input: i, check }) => check?.(await plan(i)));
});

/** What the price guard is given: the price each offer has now, and the changes of price the plan makes. */
describe('planner: the prices the price guard weighs', () => {
  const item = (id: string, price: number) => desiredItem(id, { price });
  it('compares a planned price with the one last sent, else the one the marketplace shows; counts them', async () => {
    const p = await plan(
      input({
        desired: [
          item('sent', 100), // last sent 1000, shown 900 (edited on the website): from 1000
          item('same', 250), // priced, its price unchanged
          item('stock', 250), // priced, only its stock changes
          desiredItem('sold', { price: 1 }), // the marketplace's own: not priced
          item('new', 100), // not on the marketplace: not priced
          item('adopted', 100), // no state: from what is shown
          item('never-sent', 100), // mapped, nothing sent yet: from what is shown
          item('no-price-sent', 100), // mapped, sent without a price: from what is shown
          item('odd', 100), // shown as text, not cents: no basis to compare
        ],
        state: [
          recordOf(item('sent', 1000), 1),
          recordOf(item('same', 250), 2),
          recordOf(desiredItem('stock', { price: 250, stock: 3 }), 3),
          recordOf(desiredItem('sold', { price: 1 }), 4),
          recordOf(item('never-sent', 900), 7, { lastApplied: null }),
          recordOf(item('no-price-sent', 900), 8, { lastApplied: { title: 'Item no-price-sent' } }),
        ],
        remote: snapshot(
          [],
          {},
          {},
          {
            item: [
              remoteOf(item('sent', 900), 1),
              remoteOf(item('same', 250), 2),
              remoteOf(desiredItem('stock', { price: 250, stock: 3 }), 3),
              remoteOf(desiredItem('sold', { price: 1 }), 4, { status: 'sold' }),
              remoteOf(item('adopted', 300), 6),
              remoteOf(item('never-sent', 900), 7),
              remoteOf(item('no-price-sent', 900), 8),
              remoteOf(item('odd', 100), 9, {}, { price: '19.99' }),
            ],
          },
        ),
        options: { ...options, allowPriceChange: true },
      }),
    );
    expect(p.priceGuard.priced).toBe(6);
    expect(p.priceGuard.suspect).toEqual([
      { kind: 'item', externalId: 'adopted', from: 300, to: 100 },
      { kind: 'item', externalId: 'never-sent', from: 900, to: 100 },
      { kind: 'item', externalId: 'no-price-sent', from: 900, to: 100 },
      { kind: 'item', externalId: 'sent', from: 1000, to: 100 },
    ]);
  });

  it('stops a run whose prices fall tenfold, and lets the same run through with --allow-price-change', async () => {
    const desired = ['a', 'b', 'c'].map((id) => item(id, 100));
    const state = desired.map((d, i) => recordOf(item(d.externalId, 1000), i + 1));
    const remote = snapshot([], {}, {}, { item: desired.map((d, i) => remoteOf(item(d.externalId, 1000), i + 1)) });
    const stopped = await plan(input({ desired, state, remote }));
    expect(stopped.priceGuard).toMatchObject({ tripped: true, priced: 3, rule: 'share' });
    expect(stopped.priceGuard.suspect.map((c) => c.externalId)).toEqual(['a', 'b', 'c']);
    const allowed = await plan(input({ desired, state, remote, options: { ...options, allowPriceChange: true } }));
    expect(allowed.priceGuard.tripped).toBe(false);
  });
});

/** The counts of units sold the plan hands on: read from what the lists showed, whatever is decided. */
describe('planner: units sold', () => {
  it('notes a rise of sold_count as a sale, for an offer listed this run only', async () => {
    const sold = desiredItem('sold', { stock: 5 });
    const quiet = desiredItem('quiet', { stock: 5 });
    const p = await plan(
      input({
        desired: [sold, quiet, desiredItem('new')],
        state: [
          recordOf(sold, 1, { soldCount: 2, soldCountAtSend: 2 }),
          recordOf(quiet, 2, { soldCount: 4, soldCountAtSend: 4 }),
          offerRecord('item', 'unsettled', { remoteId: 3, soldCount: 1, soldCountAtSend: 1 }),
        ],
        remote: snapshot(
          [remoteOf(a1, 9)],
          {},
          // A write a crash left unsettled on it: its count is read once that is settled.
          { unconfirmed: new Set(['item:unsettled']) },
          {
            item: [
              remoteOf(sold, 1, { soldCount: 3 }, { stock: 4 }),
              remoteOf(quiet, 2, { soldCount: 4 }),
              remoteOf(desiredItem('unsettled'), 3, { soldCount: 7 }),
            ],
          },
        ),
      }),
    );
    expect(p.soldCounts).toEqual([
      expect.objectContaining({
        kind: 'item',
        externalId: 'sold',
        soldCount: 3,
        sale: expect.objectContaining({ quantity: 1, remoteId: 1 }),
      }),
    ]);
    // The sale explains the lower stock: nothing is sent back.
    expect(only(p, 'update')).toEqual([]);
  });
});

/** The mass-archive guard's message names what the catalogue lost. */
describe('planner: what the guard says the catalogue lost', () => {
  const inFile = (file: string, n: number) =>
    Array.from({ length: n }, (_, i) =>
      desiredAccount(`${file}-${i}`, {}, { source: { file: `accounts/${file}.json` } }),
    );
  const stateOf = (ds: DesiredOffer[], from: number) => ds.map((d, i) => recordOf(d, from + i));

  it('names the files every offer of which is gone, most offers first, then by name', async () => {
    const y = inFile('y', 4);
    const b = inFile('b', 3);
    const z = inFile('z', 3);
    const keep = inFile('keep', 4);
    // Listed in another order than the message's, which sorts them.
    const all = [...z, ...keep, ...b, ...y];
    const nowhere = recordOf(desiredAccount('nowhere'), 99, { sourceFile: null });
    const state = [...stateOf(all, 1), nowhere];
    const p = await plan(
      input({
        desired: keep.slice(0, 2),
        state,
        remote: snapshot([...all.map((d, i) => remoteOf(d, 1 + i)), remoteOf(desiredAccount('nowhere'), 99)]),
      }),
    );
    expect(p.guard).toMatchObject({ tripped: true, archives: 13 });
    expect(p.guard.message).toContain(
      'The catalogue lost whole files: every offer of accounts/y.json (4), accounts/b.json (3), accounts/z.json (3) ' +
        'is gone. Nothing was sent.',
    );
    expect(p.guard.message).not.toMatch(/came out empty/);
  });

  it('says nothing of a loss when the archives are catalogue entries set to archived', async () => {
    const p = await plan(
      input({
        ...massBase,
        desired: thirty.map((d) => desiredAccount(d.externalId, { status: 'archived' }, { hash: 'archived' })),
      }),
    );
    expect(p.guard.tripped).toBe(true);
    expect(p.guard.message).toMatch(/more than half of them\. Nothing was sent\./);
  });

  it('says the catalogue came out empty when it did, even if no archived offer came from a file', async () => {
    const p = await plan(
      input({
        remote: snapshot(['w1', 'w2', 'w3'].map((id, i) => remoteOf(desiredAccount(id), i + 1))),
        options: { ...options, prune: 'all' },
      }),
    );
    expect(p.guard).toMatchObject({ tripped: true, archives: 3 });
    expect(p.guard.message).toMatch(/The catalogue came out empty/);
  });
});
