import { describe, expect, it } from 'vitest';
import type {
  DesiredAccount,
  DesiredItem,
  DesiredOffer,
  DesiredTopUp,
  OfferKind,
} from '../../src/catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../src/marketplace/marketplace-client.ts';
import type { OfferRecord } from '../../src/state/records.ts';
import type { Plan, PlanAction } from '../../src/sync/plan.ts';
import { UNKNOWN_CAPABILITIES } from '../../src/sync/capabilities.ts';
import { plan, type PlannerInput, type PlannerOptions } from '../../src/sync/planner.ts';
import { emptyKindSnapshot, type KindSnapshot, type RemoteSnapshot } from '../../src/sync/remote-snapshot.ts';

const options: PlannerOptions = {
  defaultStatus: 'listed',
  prune: 'managed',
  ownedPattern: null,
  drift: 'local-wins',
  capabilities: { ...UNKNOWN_CAPABILITIES, accountUpdate: 'usable' },
  bulk: { removeSize: 100, topUpUpdateSize: 100 },
  updateFallback: 'report',
  guard: { maxArchive: null, maxArchivePercent: 10, maxArchiveMin: 25 },
  allowMassArchive: false,
};

function account(
  externalId: string,
  fields: Partial<DesiredAccount['fields']> = {},
  extra: Partial<DesiredAccount> = {},
): DesiredAccount {
  return {
    kind: 'account',
    externalId,
    hash: `h-${externalId}`,
    source: { file: 'accounts/a.json' },
    fields: { title: `Account ${externalId}`, price: 1000, ...fields },
    images: [],
    ...extra,
  };
}
function item(externalId: string, fields: Partial<DesiredItem['fields']> = {}): DesiredItem {
  return {
    kind: 'item',
    externalId,
    hash: 'h',
    source: { file: 'items/i.yaml' },
    fields: { title: `Item ${externalId}`, price: 500, ...fields },
  };
}
function topup(externalId: string, fields: Partial<DesiredTopUp['fields']> = {}): DesiredTopUp {
  return {
    kind: 'topup',
    externalId,
    hash: 'h',
    source: { file: 'top-ups/t.ndjson' },
    fields: { offer_title: `TU ${externalId}`, price: 300, ...fields },
  };
}
function remoteOf(
  d: DesiredOffer,
  id: number,
  over: Partial<RemoteOffer> = {},
  fieldsOver: Record<string, unknown> = {},
): RemoteOffer {
  const { status, image_ids: _ids, parameters: _p, description: _d, ...echo } = d.fields as Record<string, unknown>;
  const fields: Record<string, unknown> = { ...echo, ...fieldsOver };
  return { id, externalId: d.externalId, status: (status as string | undefined) ?? 'listed', fields, ...over };
}
function recordOf(d: DesiredOffer, id: number, over: Partial<OfferRecord> = {}): OfferRecord {
  const lastApplied = { ...d.fields, status: (d.fields as { status?: string }).status ?? 'listed' };
  return {
    kind: d.kind,
    externalId: d.externalId,
    remoteId: id,
    lastApplied,
    credentialsHmac: d.kind === 'account' ? (d.credentialsHmac ?? null) : null,
    imageHashes: [],
    contentHash: d.hash,
    remoteStatus: 'listed',
    remoteUpdatedAt: 0,
    managed: true,
    sourceFile: d.source.file,
    lossyFields: [],
    updatedAt: 0,
    ...over,
  };
}
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
const types = (p: Plan) =>
  p.actions.map(
    (a) => `${a.type}${a.type === 'noop' ? `:${a.reason}` : ''}:${'externalId' in a ? a.externalId : a.image.path}`,
  );
const only = <T extends PlanAction['type']>(p: Plan, t: T) =>
  p.actions.filter((a): a is Extract<PlanAction, { type: T }> => a.type === t);

describe('planner', () => {
  it('creates a new offer, stating the default status', () => {
    const p = plan(input({ desired: [account('a1')] }));
    expect(types(p)).toEqual(['create:a1']);
    const c = only(p, 'create')[0]!;
    expect(c.fields.status).toBe('listed');
    expect(c.verifyFirst).toBe(false);
  });

  it('plans nothing when desired, state and remote agree (file formatting does not matter)', () => {
    const d = account('a1', { champions: ['Ahri', 'Lux'] });
    const p = plan(input({ desired: [d], state: [recordOf(d, 1)], remote: snapshot([remoteOf(d, 1)]) }));
    expect(types(p)).toEqual(['noop:unchanged:a1']);
  });

  it('patches only the changed echoed field', () => {
    const d = account('a1', { price: 1200 });
    const old = account('a1', { price: 1000 });
    const p = plan(input({ desired: [d], state: [recordOf(old, 1)], remote: snapshot([remoteOf(old, 1)]) }));
    const u = only(p, 'update');
    expect(u).toHaveLength(1);
    expect(u[0]!.changes).toEqual([{ field: 'price', from: 1000, to: 1200, why: 'changed' }]);
    expect(u[0]!.reason).toBe('changed');
  });

  it('patches a changed non-echoed field by comparing with last applied (item description)', () => {
    const d = item('i1', { description: 'new words' });
    const old = item('i1', { description: 'old words' });
    const remote = snapshot([], {}, {}, { item: [remoteOf(old, 7)] });
    const p = plan(input({ desired: [d], state: [recordOf(old, 7)], remote }));
    expect(only(p, 'update')[0]!.changes).toEqual([
      { field: 'description', from: 'old words', to: 'new words', why: 'changed' },
    ]);
  });

  it('sends credentials when their HMAC changed, and only then', () => {
    const d = account('a1', {}, { credentialsHmac: 'new', credentials: { login: 'l', password: 'p' } });
    const p = plan(
      input({ desired: [d], state: [recordOf(d, 1, { credentialsHmac: 'old' })], remote: snapshot([remoteOf(d, 1)]) }),
    );
    const u = only(p, 'update')[0]!;
    expect(u.sendCredentials).toBe(true);
    expect(u.changes).toEqual([]);
    const same = plan(input({ desired: [d], state: [recordOf(d, 1)], remote: snapshot([remoteOf(d, 1)]) }));
    expect(types(same)).toEqual(['noop:unchanged:a1']);
  });

  it('archives a managed offer removed from the catalogue, leaves an unmanaged one', () => {
    const gone = account('a1');
    const handMade = account('web-1');
    const p = plan(
      input({ desired: [], state: [recordOf(gone, 1)], remote: snapshot([remoteOf(gone, 1), remoteOf(handMade, 2)]) }),
    );
    expect(types(p)).toEqual(['noop:unmanaged:web-1', 'archive:a1']);
  });

  it('archives an unmanaged offer only with prune: all, or when it matches the ownership pattern', () => {
    const handMade = account('inv-9');
    const remote = snapshot([remoteOf(handMade, 2)]);
    expect(types(plan(input({ remote, options: { ...options, prune: 'all' } })))).toEqual(['archive:inv-9']);
    expect(types(plan(input({ remote, options: { ...options, ownedPattern: /^inv-/ } })))).toEqual(['archive:inv-9']);
    expect(types(plan(input({ remote, options: { ...options, prune: 'none' } })))).toEqual(['noop:unmanaged:inv-9']);
  });

  it.each(['sold', 'refunded', 'processing'] as const)(
    'never touches a %s offer, in the catalogue or not',
    (status) => {
      const d = account('a1', { price: 9999 });
      const old = account('a1');
      const inCatalogue = plan(
        input({ desired: [d], state: [recordOf(old, 1)], remote: snapshot([remoteOf(old, 1, { status })]) }),
      );
      expect(types(inCatalogue)).toEqual([`noop:${status}:a1`]);
      const removed = plan(
        input({ desired: [], state: [recordOf(old, 1)], remote: snapshot([remoteOf(old, 1, { status })]) }),
      );
      expect(types(removed)).toEqual([`noop:${status}:a1`]);
    },
  );

  it('relists an offer archived on the marketplace while still in the catalogue', () => {
    const d = account('a1');
    const p = plan(
      input({ desired: [d], state: [recordOf(d, 1)], remote: snapshot([remoteOf(d, 1, { status: 'archived' })]) }),
    );
    const u = only(p, 'update')[0]!;
    expect(u.reason).toBe('relist');
    expect(u.changes).toEqual([{ field: 'status', from: 'archived', to: 'listed', why: 'drift' }]);
  });

  it('patches back a website edit under local-wins, only reports it under report', () => {
    const d = account('a1');
    const remote = snapshot([remoteOf(d, 1, {}, { title: 'edited on the website' })]);
    const win = plan(input({ desired: [d], state: [recordOf(d, 1)], remote }));
    expect(only(win, 'update')[0]!.changes).toEqual([
      { field: 'title', from: 'edited on the website', to: 'Account a1', why: 'drift' },
    ]);
    expect(only(win, 'update')[0]!.reason).toBe('drift');
    const report = plan(
      input({ desired: [d], state: [recordOf(d, 1)], remote, options: { ...options, drift: 'report' } }),
    );
    expect(types(report)).toEqual(['noop:drift-reported:a1']);
  });

  it('adopts everything and creates nothing when the state db is lost', () => {
    const ds = [account('a1'), account('a2')];
    const p = plan(input({ desired: ds, state: [], remote: snapshot(ds.map((d, i) => remoteOf(d, i + 1))) }));
    expect(only(p, 'create')).toEqual([]);
    expect(only(p, 'adopt').map((a) => a.externalId)).toEqual(['a1', 'a2']);
  });

  it('leaves the offers of a quarantined file alone: neither updated nor archived', () => {
    const d = account('a1');
    const p = plan(
      input({
        desired: [],
        catalogue: { offers: [], complete: true, quarantinedFiles: ['accounts/a.json'], invalidOffers: [] },
        state: [recordOf(d, 1)],
        remote: snapshot([remoteOf(d, 1)]),
      }),
    );
    expect(types(p)).toEqual(['noop:quarantined:a1']);
  });

  it('does not archive an offer whose catalogue entry is invalid', () => {
    const d = account('a1');
    const p = plan(
      input({
        catalogue: {
          offers: [],
          complete: true,
          quarantinedFiles: [],
          invalidOffers: [{ kind: 'account', externalId: 'a1', file: 'accounts/a.json' }],
        },
        state: [recordOf(d, 1)],
        remote: snapshot([remoteOf(d, 1)]),
      }),
    );
    expect(types(p)).toEqual(['noop:invalid:a1']);
  });

  it('trips the mass-archive guard above max(25, 10%) and lets --allow-mass-archive through', () => {
    const ds = Array.from({ length: 30 }, (_, i) => account(`a${String(i).padStart(2, '0')}`));
    const base = {
      desired: [],
      state: ds.map((d, i) => recordOf(d, i + 1)),
      remote: snapshot(ds.map((d, i) => remoteOf(d, i + 1))),
    };
    const p = plan(input(base));
    expect(p.guard.tripped).toBe(true);
    expect(p.guard.limit).toBe(25);
    expect(p.guard.message).toMatch(/--allow-mass-archive/);
    expect(plan(input({ ...base, options: { ...options, allowMassArchive: true } })).guard.tripped).toBe(false);
  });

  it('does not plan an update again for a field recorded as lossy', () => {
    const d = account('a1', { current_rank: 4 });
    const p = plan(
      input({
        desired: [d],
        state: [recordOf(d, 1, { lossyFields: ['current_rank'] })],
        remote: snapshot([remoteOf(d, 1, {}, { current_rank: 'gold' })]),
      }),
    );
    expect(types(p)).toEqual(['noop:unchanged:a1']);
  });

  it('plans no archive at all when a list page failed', () => {
    const d = account('a1');
    const p = plan(
      input({
        state: [recordOf(d, 1)],
        remote: snapshot([remoteOf(d, 1)], { account: { complete: false, error: 'page 3: 503' } }),
      }),
    );
    expect(only(p, 'archive')).toEqual([]);
    expect(p.archiveSuppressed.join()).toMatch(/page 3: 503/);
  });

  it('plans no archive at all when the catalogue could not be read completely', () => {
    const d = account('a1');
    const p = plan(
      input({
        catalogue: { offers: [], complete: false, quarantinedFiles: [], invalidOffers: [] },
        state: [recordOf(d, 1)],
        remote: snapshot([remoteOf(d, 1)]),
      }),
    );
    expect(only(p, 'archive')).toEqual([]);
    expect(p.archiveSuppressed).toHaveLength(1);
  });

  it('forgets an offer a GET confirmed gone, and never takes an unconfirmed one for gone', () => {
    const d = account('a1');
    const gone = plan(input({ state: [recordOf(d, 1)], remote: snapshot([], {}, { gone: new Set(['account:a1']) }) }));
    expect(types(gone)).toEqual(['noop:gone:a1']);
    const unknown = plan(
      input({ state: [recordOf(d, 1)], remote: snapshot([], {}, { unconfirmed: new Set(['account:a1']) }) }),
    );
    expect(types(unknown)).toEqual(['noop:unconfirmed:a1']);
    const inCatalogue = plan(
      input({
        desired: [d],
        state: [recordOf(d, 1)],
        remote: snapshot([], {}, { unconfirmed: new Set(['account:a1']) }),
      }),
    );
    expect(types(inCatalogue)).toEqual(['noop:unconfirmed:a1']);
  });

  it('re-creates an offer confirmed gone while still in the catalogue', () => {
    const d = account('a1');
    const p = plan(
      input({ desired: [d], state: [recordOf(d, 1)], remote: snapshot([], {}, { gone: new Set(['account:a1']) }) }),
    );
    expect(types(p)).toEqual(['create:a1']);
  });

  it('verifies before creating when the list was incomplete', () => {
    const p = plan(input({ desired: [account('a1')], remote: snapshot([], { account: { complete: false } }) }));
    expect(only(p, 'create')[0]!.verifyFirst).toBe(true);
  });

  it('looks up first a create that a crash interrupted (plan does not settle the journal)', () => {
    const p = plan({ ...input({ desired: [account('a1')] }), interruptedCreates: new Set(['account:a1']) });
    expect(only(p, 'create')[0]).toMatchObject({ verifyFirst: true, reason: 'an earlier create was interrupted' });
  });

  it('an incremental snapshot trusts the state for offers it did not return', () => {
    const d = account('a1');
    const removed = account('a2');
    const p = plan(
      input({
        desired: [d],
        state: [recordOf(d, 1), recordOf(removed, 2)],
        remote: snapshot([], { account: { full: false } }),
      }),
    );
    expect(types(p)).toEqual(['noop:unchanged:a1', 'archive:a2']);
  });

  it('item updates carry only the five allowed fields; others are reported blocked', () => {
    const d = item('i1', { price: 700, type: 'skin' });
    const old = item('i1', { price: 500, type: 'gold' });
    const p = plan(
      input({ desired: [d], state: [recordOf(old, 3)], remote: snapshot([], {}, {}, { item: [remoteOf(old, 3)] }) }),
    );
    expect(only(p, 'update')[0]!.changes.map((c) => c.field)).toEqual(['price']);
    expect(types(p)).toContain('noop:blocked:i1');
  });

  it('reports account updates blocked when PATCH is not served and the fallback is report', () => {
    const d = account('a1', { price: 1200 });
    const old = account('a1');
    const p = plan(
      input({
        desired: [d],
        state: [recordOf(old, 1)],
        remote: snapshot([remoteOf(old, 1)]),
        options: { ...options, capabilities: { ...options.capabilities, accountUpdate: 'unusable' } },
      }),
    );
    expect(types(p)).toEqual(['noop:blocked:a1']);
  });

  it('uploads a new gallery image once, before the creates that need it', () => {
    const img = {
      path: 'images/a.png',
      absPath: '/c/images/a.png',
      sha256: 'abc',
      sizeBytes: 10,
      mimeType: 'image/png',
    };
    const p = plan(input({ desired: [account('a1', {}, { images: [img] }), account('a2', {}, { images: [img] })] }));
    expect(types(p)).toEqual(['upload:images/a.png', 'create:a1', 'create:a2']);
    expect(only(p, 'upload')[0]!.neededBy).toEqual(['a1', 'a2']);
  });

  it('resolves image_ids of already uploaded images and sees no change when they match', () => {
    const img = {
      path: 'images/a.png',
      absPath: '/c/images/a.png',
      sha256: 'abc',
      sizeBytes: 10,
      mimeType: 'image/png',
    };
    const d = account('a1', {}, { images: [img] });
    const rec = recordOf(d, 1, { lastApplied: { ...d.fields, status: 'listed', image_ids: [42] } });
    const p = plan(
      input({
        desired: [d],
        state: [rec],
        remote: snapshot([remoteOf(d, 1, {}, { image_ids: [42] })]),
        uploadedImages: new Map([['abc', 42]]),
      }),
    );
    expect(types(p)).toEqual(['noop:unchanged:a1']);
  });

  it('top-ups archive by status like the others, and keep their default status', () => {
    const t = topup('t1');
    const p = plan(input({ state: [recordOf(t, 5)], remote: snapshot([], {}, {}, { topup: [remoteOf(t, 5)] }) }));
    expect(types(p)).toEqual(['archive:t1']);
  });
});
