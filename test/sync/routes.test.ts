// Each executor route on its own, against the sandbox through a recording client: which requests it sends,
// what it records in the state db and what it reports. The end-to-end runs are in reconcile.run.test.ts.
import { beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.ts';
import { NotFoundError, ServerError } from '../../src/marketplace/marketplace-errors.ts';
import type { CallOptions, MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { CAPABILITIES } from '../../src/capabilities/names.ts';
import type { ArchiveAction, UploadAction } from '../../src/sync/plan/plan-actions.ts';
import { archiveOne } from '../../src/sync/execute/route-archive.ts';
import { bulkArchive, bulkUpdate } from '../../src/sync/execute/route-bulk.ts';
import { runCreate } from '../../src/sync/execute/route-create.ts';
import { runUpdate } from '../../src/sync/execute/route-update.ts';
import { RunContext } from '../../src/sync/execute/run-context.ts';
import { uploadImages } from '../../src/sync/execute/upload-images.ts';
import { ext, PNG } from '../marketplace/support/contract.ts';
import { overrideMethod } from '../support/client-override.ts';
import { type RecordingClient, recordingClient } from '../support/recording-client.ts';
import { accountBody, itemBody, topUpBody } from '../support/offers.ts';
import { desiredAccount, desiredItem, desiredTopUp } from '../support/offers.ts';
import { createAction, updateAction } from '../support/plan-actions.ts';
import { useSandboxRun } from './support/sandbox-run.ts';

const { sandbox, raw, rec, store } = useSandboxRun();
let ctx: RunContext;

beforeEach(() => {
  ctx = new RunContext(deps());
});
const deps = () => ({ client: rec.client, store, logger: silentLogger, runId: 'run-1', createAttempts: 3 });

const outcomes = () => ctx.outcomes.map((o) => `${o.outcome}:${o.externalId}`);

describe('create route', () => {
  it('sends one create, maps the offer and settles its journal entry', async () => {
    const d = desiredItem(ext('i'));
    await runCreate(ctx, createAction(d));
    expect(rec.calls).toEqual(['items.create']);
    expect(outcomes()).toEqual([`created:${d.externalId}`]);
    expect((await store.getOffer('item', d.externalId))?.remoteId).toEqual(expect.any(Number));
    expect(await store.journalUnfinished()).toEqual([]);
  });

  it('looks up first when told to, and adopts and aligns an offer already listed instead of creating it', async () => {
    const d = desiredItem(ext('i'), { price: 777 });
    const existing = await raw.items.create(itemBody(d.externalId, { price: 100 }));
    await runCreate(ctx, createAction(d, { verifyFirst: true }));
    expect(rec.calls).toEqual(['items.findByExternalId', 'items.update']);
    expect(outcomes()).toEqual([`adopted:${d.externalId}`]);
    expect((await raw.items.get({ id: existing.id })).fields.price).toBe(777);
  });

  it('after a 409 looks the offer up before anything else, and adopts it', async () => {
    const d = desiredItem(ext('i'));
    await raw.items.create(itemBody(d.externalId));
    await runCreate(ctx, createAction(d));
    expect(rec.calls.slice(0, 2)).toEqual(['items.create', 'items.findByExternalId']);
    expect(rec.calls.filter((c) => c === 'items.create')).toHaveLength(1);
    expect(outcomes()).toEqual([`adopted:${d.externalId}`]);
  });

  it('once the run is stopped, begins no create and reports the offer skipped, not failed', async () => {
    const stop = new AbortController();
    stop.abort(new Error('stopped by SIGTERM'));
    const stopped = new RunContext({ ...deps(), signal: stop.signal });
    const d = desiredItem(ext('i'));
    await runCreate(stopped, createAction(d));
    expect(rec.calls).toEqual([]);
    expect(stopped.outcomes).toEqual([
      expect.objectContaining({
        outcome: 'skipped',
        message: expect.stringMatching(/run was stopped before it was sent/),
      }),
    ]);
    expect(await store.journalUnfinished()).toEqual([]);
    // Nothing was sent: the offer's story tells no create, answered or not.
    await stopped.flushEvents();
    expect(await store.offerHistory('item', d.externalId, 10)).toEqual([]);
  });
});

describe('update routes', () => {
  it('patch: one PATCH with the changed fields only', async () => {
    const d = desiredItem(ext('i'), { price: 901 });
    const live = await raw.items.create(itemBody(d.externalId));
    await runUpdate(ctx, updateAction(d, live.id, { via: 'patch', ifRefused: 'fail' }), {
      via: 'patch',
      ifRefused: 'fail',
    });
    expect(rec.calls).toEqual(['items.update']);
    expect(outcomes()).toEqual([`updated:${d.externalId}`]);
    expect((await store.getOffer('item', d.externalId))?.lastApplied).toMatchObject({ price: 901 });
  });

  it('account patch refused, fallback report: the probe learns it once, the next update sends nothing', async () => {
    sandbox.setFaults({ disabled: ['accounts.update'] });
    const [a, b] = [desiredAccount(ext('a'), { price: 2222 }), desiredAccount(ext('a'), { price: 3333 })];
    const [la, lb] = [
      await raw.accounts.create(accountBody(a.externalId)),
      await raw.accounts.create(accountBody(b.externalId)),
    ];
    const route = { via: 'patch', ifRefused: 'report' } as const;
    await runUpdate(ctx, updateAction(a, la.id, route), route);
    expect(rec.calls).toEqual(['accounts.update', 'accounts.get']);
    expect((await store.getCapability(CAPABILITIES.accountUpdate))?.usable).toBe(false);
    await runUpdate(ctx, updateAction(b, lb.id, route), route);
    expect(rec.calls).toHaveLength(2);
    expect(outcomes()).toEqual([`blocked:${a.externalId}`, `blocked:${b.externalId}`]);
  });

  it('account patch refused, fallback recreate: archive then create; a refused create stops the others', async () => {
    sandbox.setFaults({ disabled: ['accounts.update'] });
    const [a, b] = [desiredAccount(ext('a'), { price: 2222 }), desiredAccount(ext('a'), { price: 3333 })];
    const [la, lb] = [
      await raw.accounts.create(accountBody(a.externalId)),
      await raw.accounts.create(accountBody(b.externalId)),
    ];
    const route = { via: 'patch', ifRefused: 'recreate' } as const;
    await runUpdate(ctx, updateAction(a, la.id, route), route);
    // The sandbox keeps archived external_ids: the create is refused, and so is every recreate after it.
    expect(rec.calls).toEqual(['accounts.update', 'accounts.get', 'accounts.archive', 'accounts.create']);
    expect((await store.getCapability(CAPABILITIES.accountRecreate))?.usable).toBe(false);
    await runUpdate(ctx, updateAction(b, lb.id, route), route);
    expect(rec.calls).toHaveLength(4);
    expect(outcomes()).toEqual([`failed:${a.externalId}`, `blocked:${b.externalId}`]);
    expect(ctx.outcomes[0]?.message).toMatch(/keeps archived external_ids/);
  });

  it('recreate stopped after the archive went out: skipped, saying it is archived until the next run', async () => {
    const d = desiredAccount(ext('a'), { price: 4444 });
    const live = await raw.accounts.create(accountBody(d.externalId));
    // The run stops (SIGTERM) while the archive is on the wire: the create after it is never begun.
    const stop = new AbortController();
    const accounts = new Proxy(rec.client.accounts, {
      get(t, prop, receiver) {
        if (prop !== 'archive') return Reflect.get(t, prop, receiver) as unknown;
        return async (...args: Parameters<typeof t.archive>) => {
          const out = await t.archive(...args);
          stop.abort(new Error('stopped by SIGTERM'));
          return out;
        };
      },
    });
    const stopped = new RunContext({ ...deps(), client: { ...rec.client, accounts }, signal: stop.signal });
    const route = { via: 'recreate', ifRefused: 'report' } as const;
    await runUpdate(stopped, updateAction(d, live.id, route), route);
    expect(rec.calls).toEqual(['accounts.archive']);
    expect(stopped.outcomes).toEqual([
      expect.objectContaining({
        outcome: 'skipped',
        message: expect.stringMatching(
          new RegExp(`archived #${live.id} to re-create it.*stopped before the create.*next run creates it again`),
        ),
      }),
    ]);
    expect((await raw.accounts.get({ id: live.id })).status).toBe('archived');
    // Not a verdict on the route: the next run probes it again.
    expect(await store.getCapability(CAPABILITIES.accountRecreate)).toBeUndefined();
  });

  it('bulk-update: one call for a batch of top-ups; each is recorded as applied', async () => {
    const ts = [desiredTopUp(ext('t'), { price: 401 }), desiredTopUp(ext('t'), { price: 402 })];
    const lives = [
      await raw.topUps.create(topUpBody(ts[0]!.externalId)),
      await raw.topUps.create(topUpBody(ts[1]!.externalId)),
    ];
    const route = { via: 'bulk-update', batch: 0, ifRefused: 'patch' } as const;
    await bulkUpdate(
      ctx,
      ts.map((t, i) => updateAction(t, lives[i]!.id, route)),
    );
    expect(rec.calls).toEqual(['topUps.bulk']);
    expect(outcomes().sort()).toEqual(ts.map((t) => `updated:${t.externalId}`).sort());
    expect((await raw.topUps.get({ id: lives[1]!.id })).fields.price).toBe(402);
  });

  it('bulk-update refused: the route is marked unusable and each top-up goes by its own PATCH', async () => {
    sandbox.setFaults({ disabled: ['topUps.bulkUpdate'] });
    const ts = [desiredTopUp(ext('t'), { price: 501 }), desiredTopUp(ext('t'), { price: 502 })];
    const lives = [
      await raw.topUps.create(topUpBody(ts[0]!.externalId)),
      await raw.topUps.create(topUpBody(ts[1]!.externalId)),
    ];
    const route = { via: 'bulk-update', batch: 0, ifRefused: 'patch' } as const;
    await bulkUpdate(
      ctx,
      ts.map((t, i) => updateAction(t, lives[i]!.id, route)),
    );
    expect(rec.calls).toEqual(['topUps.bulk', 'topUps.update', 'topUps.update']);
    expect((await store.getCapability(CAPABILITIES.topUpBulkUpdate))?.usable).toBe(false);
    // Each top-up by a plain PATCH: nothing learnt of the account routes.
    expect(await store.getCapability(CAPABILITIES.accountUpdate)).toBeUndefined();
    expect(outcomes().sort()).toEqual(ts.map((t) => `updated:${t.externalId}`).sort());
  });
});

describe('archive routes', () => {
  const archive = (kind: ArchiveAction['kind'], externalId: string, remoteId: number, route: ArchiveAction['route']) =>
    ({ type: 'archive', kind, externalId, remoteId, route, reason: 'removed from the catalogue' }) as const;

  it('single: DELETE for an account, PATCH status=archived for an item', async () => {
    const [ea, ei] = [ext('a'), ext('i')];
    const [la, li] = [await raw.accounts.create(accountBody(ea)), await raw.items.create(itemBody(ei))];
    await archiveOne(ctx, archive('account', ea, la.id, { via: 'single' }));
    await archiveOne(ctx, archive('item', ei, li.id, { via: 'single' }));
    expect(rec.calls).toEqual(['accounts.archive', 'items.update']);
    expect((await raw.items.get({ id: li.id })).status).toBe('archived');
    expect(outcomes()).toEqual([`archived:${ea}`, `archived:${ei}`]);
    expect((await store.getOffer('item', ei))?.remoteStatus).toBe('archived');
  });

  it('bulk-remove: one call for a batch of accounts', async () => {
    const es = [ext('a'), ext('a')];
    const lives = [await raw.accounts.create(accountBody(es[0]!)), await raw.accounts.create(accountBody(es[1]!))];
    const route = { via: 'bulk-remove', batch: 0, ifRefused: 'single' } as const;
    await bulkArchive(
      ctx,
      es.map((e, i) => archive('account', e, lives[i]!.id, route)),
    );
    expect(rec.calls).toEqual(['accounts.bulkRemove']);
    expect(outcomes().sort()).toEqual(es.map((e) => `archived:${e}`).sort());
  });

  it('bulk-remove refused: each account by its own DELETE', async () => {
    sandbox.setFaults({ disabled: ['accounts.bulkRemove'] });
    const es = [ext('a'), ext('a')];
    const lives = [await raw.accounts.create(accountBody(es[0]!)), await raw.accounts.create(accountBody(es[1]!))];
    const route = { via: 'bulk-remove', batch: 0, ifRefused: 'single' } as const;
    await bulkArchive(
      ctx,
      es.map((e, i) => archive('account', e, lives[i]!.id, route)),
    );
    expect(rec.calls).toEqual(['accounts.bulkRemove', 'accounts.archive', 'accounts.archive']);
    expect((await store.getCapability(CAPABILITIES.accountBulkRemove))?.usable).toBe(false);
  });
});

describe('upload route', () => {
  it('uploads an image once per sha256', async () => {
    const image = {
      path: 'images/a.png',
      absPath: '/nowhere/a.png',
      sha256: ext('sha'),
      sizeBytes: PNG.length,
      mimeType: 'image/png',
    };
    const upload: UploadAction = { type: 'upload', image, neededBy: ['a-1'] };
    const failed = await uploadImages(ctx, [upload], async () => PNG);
    expect(failed.size).toBe(0);
    await uploadImages(ctx, [upload], async () => PNG);
    expect(rec.calls).toEqual(['images.upload']);
    expect(outcomes()).toEqual(['uploaded:images/a.png', 'unchanged:images/a.png']);
  });
});

describe('request priorities', () => {
  /** Where each method takes its CallOptions. */
  const OPTS_AT: Readonly<Record<string, number>> = {
    create: 1,
    get: 1,
    update: 2,
    archive: 1,
    findByExternalId: 1,
    bulk: 3,
    bulkRemove: 1,
    bulkUpdate: 1,
    upload: 1,
  };

  /** The real client, noting each call as "resource.method:priority". */
  const priorities = (inner: MarketplaceClient): RecordingClient =>
    recordingClient(inner, (resource, method, args) => {
      const at = OPTS_AT[method];
      const opts = at === undefined ? undefined : (args[at] as CallOptions | undefined);
      return `${resource}.${method}:${opts?.priority}`;
    });

  // The request queue sends the highest first: money at risk first, uploads before the creates that need them.
  it('priorities by money rank: archive 50, price 30, upload 21, create 20, rest 10', async () => {
    const p = priorities(raw);
    const c = new RunContext({ ...deps(), client: p.client });
    const image = {
      path: 'images/p.png',
      absPath: '/nowhere/p.png',
      sha256: ext('sha'),
      sizeBytes: 1,
      mimeType: 'image/png',
    };
    await uploadImages(c, [{ type: 'upload', image, neededBy: ['x'] }], async () => PNG);
    expect(p.calls.splice(0)).toEqual(['images.upload:21']);

    await runCreate(c, createAction(desiredItem(ext('i')), { verifyFirst: true }));
    expect(p.calls.splice(0)).toEqual(['items.findByExternalId:20', 'items.create:20']);

    const i = desiredItem(ext('i'), { price: 333 });
    const li = await raw.items.create(itemBody(i.externalId));
    await runUpdate(c, updateAction(i, li.id), { via: 'patch', ifRefused: 'fail' });
    expect(p.calls.splice(0)).toEqual(['items.update:30']);

    // A re-create is an update's: its archive goes at the update's priority, its create at a create's.
    const a = desiredAccount(ext('a'), { price: 4321 });
    const la = await raw.accounts.create(accountBody(a.externalId));
    const recreate = { via: 'recreate', ifRefused: 'report' } as const;
    await runUpdate(c, updateAction(a, la.id, recreate), recreate);
    expect(p.calls.splice(0)).toEqual(['accounts.archive:10', 'accounts.create:20']);

    const ts = [desiredTopUp(ext('t'), { price: 411 }), desiredTopUp(ext('t'), { price: 412 })];
    const lts = await Promise.all(ts.map((t) => raw.topUps.create(topUpBody(t.externalId))));
    const bulk = { via: 'bulk-update', batch: 0, ifRefused: 'patch' } as const;
    await bulkUpdate(
      c,
      ts.map((t, n) => updateAction(t, lts[n]!.id, bulk)),
    );
    expect(p.calls.splice(0)).toEqual(['topUps.bulk:30']);

    const archive = (
      kind: ArchiveAction['kind'],
      externalId: string,
      remoteId: number,
      route: ArchiveAction['route'],
    ) => ({ type: 'archive', kind, externalId, remoteId, route, reason: 'removed from the catalogue' }) as const;
    await bulkArchive(
      c,
      ts.map((t, n) =>
        archive('topup', t.externalId, lts[n]!.id, { via: 'bulk-update', batch: 0, ifRefused: 'single' }),
      ),
    );
    expect(p.calls.splice(0)).toEqual(['topUps.bulk:50']);

    await archiveOne(c, archive('item', i.externalId, li.id, { via: 'single' }));
    const ea = ext('a');
    const lea = await raw.accounts.create(accountBody(ea));
    await archiveOne(c, archive('account', ea, lea.id, { via: 'single' }));
    const eb = ext('a');
    const leb = await raw.accounts.create(accountBody(eb));
    await bulkArchive(c, [archive('account', eb, leb.id, { via: 'bulk-remove', batch: 0, ifRefused: 'single' })]);
    expect(p.calls.splice(0)).toEqual(['items.update:50', 'accounts.archive:50', 'accounts.bulkRemove:50']);
  });

  it('what an archive reads to tell a route refused from an offer gone goes at the archive priority too', async () => {
    // A bulk-remove counted short whose list read-back fails: each account confirmed by its own GET.
    const p = priorities(
      overrideMethod(
        overrideMethod(raw, 'accounts', 'bulkRemove', async () => ({ success: true, removed: 0 })),
        'accounts',
        'list',
        () => {
          throw new ServerError({ method: 'GET', path: '/api/v1/accounts', status: 503 });
        },
      ),
    );
    const c = new RunContext({ ...deps(), client: p.client });
    const e = ext('a');
    const live = await raw.accounts.create(accountBody(e));
    await raw.accounts.archive({ id: live.id });
    await bulkArchive(c, [
      {
        type: 'archive',
        kind: 'account',
        externalId: e,
        remoteId: live.id,
        route: { via: 'bulk-remove', batch: 0, ifRefused: 'single' },
        reason: 'removed',
      },
    ]);
    expect(p.calls).toEqual(['accounts.bulkRemove:50', 'accounts.list:undefined', 'accounts.get:50']);
    expect(c.outcomes.map((o) => o.outcome)).toEqual(['archived']);

    // An item's DELETE answered 404: the GET that tells whether the offer is there.
    await store.setCapability(CAPABILITIES.itemArchiveByPatch, false, '422: refused');
    const ei = ext('i');
    const li = await raw.items.create(itemBody(ei));
    const q = priorities(
      overrideMethod(raw, 'items', 'archive', async () => {
        throw new NotFoundError({ method: 'DELETE', path: `/api/v1/items/${li.id}`, status: 404 });
      }),
    );
    const d = new RunContext({ ...deps(), client: q.client });
    await archiveOne(d, {
      type: 'archive',
      kind: 'item',
      externalId: ei,
      remoteId: li.id,
      route: { via: 'single' },
      reason: 'removed',
    });
    expect(q.calls).toEqual(['items.archive:50', 'items.get:50', 'items.update:50']);
  });
});
