// The executor routes' edges, each against the sandbox through a recording client: an offer sold under a
// route, a create whose outcome is unknown, refusals that are the offer's and not the route's, bulk answers
// that refuse one element, and uploads that fail. routes.test.ts has each route's ordinary path.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImageRef } from '../../src/catalogue/desired-offer.ts';
import { type Logger, silentLogger } from '../../src/log/logger.ts';
import { MethodNotAllowedError, NotFoundError, ServerError } from '../../src/marketplace/marketplace-errors.ts';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { CAPABILITIES } from '../../src/capabilities/names.ts';
import type { UploadAction } from '../../src/sync/plan/plan-actions.ts';
import { archiveOne } from '../../src/sync/execute/route-archive.ts';
import { bulkArchive, bulkUpdate } from '../../src/sync/execute/route-bulk.ts';
import { runCreate } from '../../src/sync/execute/route-create.ts';
import { runUpdate } from '../../src/sync/execute/route-update.ts';
import { RunContext } from '../../src/sync/execute/run-context.ts';
import { uploadImages } from '../../src/sync/execute/upload-images.ts';
import { ext, PNG } from '../marketplace/support/contract.ts';
import { captureLog } from '../support/log-capture.ts';
import { accountBody, itemBody, topUpBody } from '../support/offers.ts';
import { mapListPages, overrideMethod } from '../support/client-override.ts';
import { type RecordingClient, recordingClient } from '../support/recording-client.ts';
import { desiredAccount, desiredItem, desiredTopUp, imageRef } from '../support/offers.ts';
import { archiveAction, createAction, updateAction } from '../support/plan-actions.ts';
import { useSandboxRun } from './support/sandbox-run.ts';

const { sandbox, raw, store } = useSandboxRun();
/** Recording whichever client the test runs over (useClient), not only raw. */
let rec: RecordingClient;
let ctx: RunContext;
let progress: number[];

beforeEach(() => {
  useClient(raw);
});
afterEach(() => {
  sandbox.setRepresentation({});
});

/** A fresh run context over `client` (recorded), sharing the test's state db. */
function useClient(client: MarketplaceClient, createAttempts = 3, logger: Logger = silentLogger): void {
  rec = recordingClient(client);
  progress = [];
  ctx = new RunContext({
    client: rec.client,
    store,
    logger,
    runId: 'run-1',
    createAttempts,
    onProgress: (done) => progress.push(done),
  });
}

/** A fresh sha each: the sandbox keeps one upload per sha. */
const image = (name: string): ImageRef =>
  imageRef(name, { absPath: `/nowhere/${name}.png`, sha256: ext('sha'), sizeBytes: PNG.length });
const outcomes = () => ctx.outcomes.map((o) => `${o.outcome}:${o.externalId}`);
const fields = (externalId: string) => raw.items.findByExternalId(externalId).then((o) => o?.fields);
const serverError = (method: string, path: string) => new ServerError({ method, path, status: 503 });

describe('create route edges', () => {
  it('an account whose image failed to upload is not sent, and the report names the image', async () => {
    const img = image('front');
    const d = desiredAccount(ext('a'), {}, { images: [img], source: { file: 'x.json' } });
    ctx.failedUploads.add(img.sha256);
    await runCreate(ctx, createAction(d));
    expect(rec.calls).toEqual([]);
    expect(outcomes()).toEqual([`failed:${d.externalId}`]);
    expect(ctx.outcomes[0]?.message).toBe('not sent: image images/front.png failed to upload');
    expect(ctx.outcomes[0]?.file).toBe('x.json');
  });

  it('an image of another offer failing does not hold this one back', async () => {
    const d = desiredAccount(ext('a'), {}, { images: [image('mine')] });
    ctx.failedUploads.add(image('other').sha256);
    await runCreate(ctx, createAction(d));
    expect(outcomes()).toEqual([`created:${d.externalId}`]);
  });

  it('looking first finds the offer sold: reported sold, recorded once in the sales, nothing written', async () => {
    const d = desiredItem(ext('i'));
    const live = await raw.items.create(itemBody(d.externalId));
    sandbox.setStatus('items', live.id, 'sold');
    await runCreate(ctx, createAction(d, { verifyFirst: true }));
    expect(rec.calls).toEqual(['items.findByExternalId']);
    expect(outcomes()).toEqual([`sold:${d.externalId}`]);
    expect(ctx.outcomes[0]?.message).toBe('the marketplace marks it sold');
    expect(await store.getOffer('item', d.externalId)).toMatchObject({ remoteId: live.id, remoteStatus: 'sold' });
    expect(ctx.sold).toEqual([expect.objectContaining({ external_id: d.externalId, id: live.id, status: 'sold' })]);
  });

  it('looking first finds the offer as the catalogue has it: adopted with no write, its fields recorded', async () => {
    const d = desiredItem(ext('i'), {}, { source: { file: 'x.json' } });
    const live = await raw.items.create(itemBody(d.externalId));
    await runCreate(ctx, createAction(d, { verifyFirst: true }));
    expect(rec.calls).toEqual(['items.findByExternalId']);
    expect(outcomes()).toEqual([`adopted:${d.externalId}`]);
    const saved = await store.getOffer('item', d.externalId);
    expect(saved).toMatchObject({ remoteId: live.id, managed: true, sourceFile: 'x.json', remoteStatus: 'listed' });
    expect(saved?.lastApplied).toMatchObject({ price: d.fields.price, title: d.fields.title });
  });

  it('looking first and finding nothing creates it', async () => {
    const d = desiredItem(ext('i'));
    await runCreate(ctx, createAction(d, { verifyFirst: true }));
    expect(rec.calls).toEqual(['items.findByExternalId', 'items.create']);
    expect(outcomes()).toEqual([`created:${d.externalId}`]);
  });

  it('a create lost before the server: looked up, then sent again with the same idempotency key', async () => {
    const keys: unknown[] = [];
    let lost = 1;
    useClient(
      overrideMethod(raw, 'items', 'create', async (original, ...args) => {
        keys.push((args[1] as { idempotencyKey?: string }).idempotencyKey);
        if (lost-- > 0) throw serverError('POST', '/api/v1/items');
        return original(...args);
      }),
    );
    const d = desiredItem(ext('i'));
    await runCreate(ctx, createAction(d));
    expect(rec.calls).toEqual(['items.create', 'items.findByExternalId', 'items.create']);
    expect(outcomes()).toEqual([`created:${d.externalId}`]);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^offersync-run-1-\d+$/);
    expect(keys[1]).toBe(keys[0]);
    // The lost attempt stays "sent" (the next start settles it by a lookup); the retry is done.
    expect(await store.journalUnfinished()).toHaveLength(1);
  });

  it('gives up after createAttempts creates with unknown outcomes, and reports the failure', async () => {
    useClient(
      overrideMethod(raw, 'items', 'create', async () => {
        throw serverError('POST', '/api/v1/items');
      }),
      2,
    );
    const d = desiredItem(ext('i'));
    await runCreate(ctx, createAction(d));
    expect(rec.calls).toEqual(['items.create', 'items.findByExternalId', 'items.create', 'items.findByExternalId']);
    expect(outcomes()).toEqual([`failed:${d.externalId}`]);
    expect(ctx.outcomes[0]?.message).toMatch(/server error/);
    // The outcome is unknown: the entries stay "sent" for the next start to settle.
    expect(await store.journalUnfinished()).toHaveLength(2);
  });

  it('a 409 whose lookup finds nothing is a failure: never a second create', async () => {
    const d = desiredItem(ext('i'));
    await raw.items.create(itemBody(d.externalId));
    useClient(overrideMethod(raw, 'items', 'findByExternalId', async () => null));
    await runCreate(ctx, createAction(d));
    expect(rec.calls).toEqual(['items.create', 'items.findByExternalId']);
    expect(outcomes()).toEqual([`failed:${d.externalId}`]);
    expect(ctx.outcomes[0]?.message).toMatch(/409/);
  });

  it('a refusal other than 409 is not looked up', async () => {
    const d = desiredItem(ext('i'), { price: -5 });
    await runCreate(ctx, createAction(d));
    expect(rec.calls).toEqual(['items.create']);
    expect(outcomes()).toEqual([`failed:${d.externalId}`]);
    // The marketplace's own words first: the request and its answer.
    expect(ctx.outcomes[0]?.message).toMatch(/^POST \/api\/v1\/items.* 422 /);
    expect(await store.journalUnfinished()).toEqual([]);
  });

  it('adopting an item whose stock fell by the units it sold meanwhile does not put them back on sale', async () => {
    const d = desiredItem(ext('i'), { price: 778, stock: 5 });
    const live = await raw.items.create(itemBody(d.externalId, { stock: 5 }));
    sandbox.sell('items', live.id, 2);
    await runCreate(ctx, createAction(d, { verifyFirst: true }));
    expect(outcomes()).toEqual([`adopted:${d.externalId}`]);
    expect((await raw.items.get({ id: live.id })).fields).toMatchObject({ price: 778, stock: 3 });
  });

  it('an account whose two images failed names both', async () => {
    const [front, back] = [image('front'), image('back')];
    ctx.failedUploads.add(front.sha256);
    ctx.failedUploads.add(back.sha256);
    const d = desiredAccount(ext('a'), {}, { images: [front, back] });
    await runCreate(ctx, createAction(d));
    expect(ctx.outcomes[0]?.message).toBe('not sent: image images/front.png, images/back.png failed to upload');
  });

  it('adopting an offer that differs patches only what differs and records the mapping', async () => {
    const d = desiredItem(ext('i'), { price: 4321 });
    const live = await raw.items.create(itemBody(d.externalId));
    await runCreate(ctx, createAction(d, { verifyFirst: true }));
    expect(rec.calls).toEqual(['items.findByExternalId', 'items.update']);
    expect(await fields(d.externalId)).toMatchObject({ price: 4321 });
    expect(await store.getOffer('item', d.externalId)).toMatchObject({ remoteId: live.id, managed: true });
    expect((await store.getOffer('item', d.externalId))?.lastApplied).toMatchObject({ price: 4321 });
  });
});

describe('update route edges', () => {
  it('a 409 on an offer sold meanwhile: reported sold and recorded, not failed', async () => {
    const d = desiredItem(ext('i'), { price: 901 });
    const live = await raw.items.create(itemBody(d.externalId));
    sandbox.setStatus('items', live.id, 'sold');
    const route = { via: 'patch', ifRefused: 'fail' } as const;
    await runUpdate(ctx, updateAction(d, live.id, route), route);
    expect(rec.calls).toEqual(['items.update', 'items.get']);
    expect(outcomes()).toEqual([`sold:${d.externalId}`]);
    expect(ctx.outcomes[0]?.message).toBe('the marketplace marks it sold');
    expect((await store.getOffer('item', d.externalId))?.remoteStatus).toBe('sold');
    expect(ctx.sold.map((s) => s.external_id)).toEqual([d.externalId]);
  });

  it('a 409 the GET cannot explain is a failure', async () => {
    const d = desiredItem(ext('i'));
    const live = await raw.items.create(itemBody(d.externalId));
    sandbox.setStatus('items', live.id, 'sold');
    useClient(
      overrideMethod(raw, 'items', 'get', async () => {
        throw serverError('GET', `/api/v1/items/${live.id}`);
      }),
    );
    const route = { via: 'patch', ifRefused: 'fail' } as const;
    await runUpdate(ctx, updateAction(d, live.id, route), route);
    expect(outcomes()).toEqual([`failed:${d.externalId}`]);
    expect(ctx.sold).toEqual([]);
  });

  it('an account PATCH refused with 422 is the offer failing: the route stays unjudged', async () => {
    const d = desiredAccount(ext('a'), { price: -1 });
    const live = await raw.accounts.create(accountBody(d.externalId));
    const route = { via: 'patch', ifRefused: 'report' } as const;
    await runUpdate(ctx, updateAction(d, live.id, route), route);
    expect(rec.calls).toEqual(['accounts.update']);
    expect(outcomes()).toEqual([`failed:${d.externalId}`]);
    expect(await store.getCapability(CAPABILITIES.accountUpdate)).toBeUndefined();
  });

  it('an account PATCH 404 on an offer that is not there: the offer fails, the route is not condemned', async () => {
    const d = desiredAccount(ext('a'));
    const route = { via: 'patch', ifRefused: 'report' } as const;
    await runUpdate(ctx, updateAction(d, 987_654_321, route), route);
    expect(rec.calls).toEqual(['accounts.update', 'accounts.get']);
    expect(outcomes()).toEqual([`failed:${d.externalId}`]);
    expect(await store.getCapability(CAPABILITIES.accountUpdate)).toBeUndefined();
  });

  it('an account PATCH answered 404 while the offer exists: the route is learnt as not served', async () => {
    const d = desiredAccount(ext('a'), { price: 2345 });
    const live = await raw.accounts.create(accountBody(d.externalId));
    const log = captureLog('warn');
    useClient(
      overrideMethod(raw, 'accounts', 'update', async () => {
        throw new NotFoundError({ method: 'PATCH', path: `/api/v1/accounts/${live.id}`, status: 404 });
      }),
      3,
      log.logger,
    );
    const route = { via: 'patch', ifRefused: 'report' } as const;
    await runUpdate(ctx, updateAction(d, live.id, route), route);
    expect(rec.calls).toEqual(['accounts.update', 'accounts.get']);
    expect(outcomes()).toEqual([`blocked:${d.externalId}`]);
    expect(ctx.outcomes[0]?.fields).toEqual(['price']);
    expect(await store.getCapability(CAPABILITIES.accountUpdate)).toMatchObject({ usable: false });
    // Said once, with the status, for whoever reads why account updates stopped going out.
    expect(log.find('the marketplace does not serve PATCH /accounts/{id}: account updates fall back')).toEqual([
      expect.objectContaining({ level: 40, status: 404 }),
    ]);
  });

  it('an item update sends the changed fields only, and a reason "adopted" reports it adopted', async () => {
    const d = desiredItem(ext('i'), { price: 333, title: 'Not sent' });
    const live = await raw.items.create(itemBody(d.externalId));
    const route = { via: 'patch', ifRefused: 'fail' } as const;
    await runUpdate(ctx, updateAction(d, live.id, route, { reason: 'adopted' }), route);
    expect(outcomes()).toEqual([`adopted:${d.externalId}`]);
    expect(ctx.outcomes[0]?.fields).toEqual(['price']);
    expect(await fields(d.externalId)).toMatchObject({ price: 333, title: `Item ${d.externalId}` });
  });

  it('an account update with images pending sends the uploaded image ids', async () => {
    const img = image('front');
    const uploaded = await raw.images.upload({ data: PNG, filename: 'front.png', mimeType: 'image/png' });
    await store.putImage({ sha256: img.sha256, remoteId: uploaded.id, url: null, uploadedAt: 1 });
    const d = desiredAccount(ext('a'), {}, { images: [img] });
    const live = await raw.accounts.create(accountBody(d.externalId));
    const route = { via: 'patch', ifRefused: 'fail' } as const;
    const a = updateAction(d, live.id, route, { changes: [], imagesPending: true, sendImages: true });
    await runUpdate(ctx, a, route);
    expect(outcomes()).toEqual([`updated:${d.externalId}`]);
    expect(ctx.outcomes[0]?.fields).toEqual(['image_ids']);
    expect((await raw.accounts.get({ id: live.id })).fields.image_ids).toEqual([uploaded.id]);
    expect((await store.getOffer('account', d.externalId))?.lastApplied).toMatchObject({ image_ids: [uploaded.id] });
  });
});

describe('bulk route edges', () => {
  const bulk = { via: 'bulk-update', batch: 0, ifRefused: 'patch' } as const;

  it('a bulk-update refusing one element: that top-up goes singly (PATCH: sold), the rest applied', async () => {
    const ts = [desiredTopUp(ext('t'), { price: 601 }), desiredTopUp(ext('t'), { price: 602 })];
    const lives = [
      await raw.topUps.create(topUpBody(ts[0]!.externalId)),
      await raw.topUps.create(topUpBody(ts[1]!.externalId)),
    ];
    sandbox.setStatus('top-ups', lives[1]!.id, 'sold');
    await bulkUpdate(
      ctx,
      ts.map((t, i) => updateAction(t, lives[i]!.id, bulk)),
    );
    // The bulk answer's failure may be the marketplace's or the offer's: the offer's own PATCH tells (409, sold).
    expect(rec.calls).toEqual(['topUps.bulk', 'topUps.update', 'topUps.get']);
    expect(outcomes()).toEqual([`updated:${ts[0]!.externalId}`, `sold:${ts[1]!.externalId}`]);
    expect(ctx.outcomes[1]?.kind).toBe('topup');
    expect((await store.getOffer('topup', ts[0]!.externalId))?.lastApplied).toMatchObject({ price: 601 });
    expect((await store.getOffer('topup', ts[1]!.externalId))?.remoteStatus).toBe('sold');
  });

  it('batches go in their planned order, one call each', async () => {
    const ts = [
      desiredTopUp(ext('t'), { price: 701 }),
      desiredTopUp(ext('t'), { price: 702 }),
      desiredTopUp(ext('t'), { price: 703 }),
    ];
    const lives = await Promise.all(ts.map((t) => raw.topUps.create(topUpBody(t.externalId))));
    const sent: number[][] = [];
    useClient(
      overrideMethod(raw, 'topUps', 'bulk', (original, ...args) => {
        sent.push((args[2] as { id: number }[]).map((e) => e.id));
        return original(...args);
      }),
    );
    const batchOf = [1, 0, 1];
    await bulkUpdate(
      ctx,
      ts.map((t, i) => updateAction(t, lives[i]!.id, { ...bulk, batch: batchOf[i]! })),
    );
    expect(sent).toEqual([[lives[1]!.id], [lives[0]!.id, lives[2]!.id]]);
  });

  it('a bulk-update failing as a whole (not a refusal of the route) fails each of its top-ups', async () => {
    const ts = [desiredTopUp(ext('t')), desiredTopUp(ext('t'))];
    const lives = await Promise.all(ts.map((t) => raw.topUps.create(topUpBody(t.externalId))));
    useClient(
      overrideMethod(raw, 'topUps', 'bulk', async () => {
        throw serverError('POST', '/api/v1/top-ups/bulk-update');
      }),
    );
    await bulkUpdate(
      ctx,
      ts.map((t, i) => updateAction(t, lives[i]!.id, bulk)),
    );
    expect(rec.calls).toEqual(['topUps.bulk']);
    expect(outcomes().sort()).toEqual(ts.map((t) => `failed:${t.externalId}`).sort());
    expect(ctx.outcomes[0]?.message).toMatch(/^bulk-update failed: .*server error/);
    expect(await store.getCapability(CAPABILITIES.topUpBulkUpdate)).toBeUndefined();
  });

  it('a top-up archive by bulk-update: archived in the marketplace and in the state db', async () => {
    const e = ext('t');
    const live = await raw.topUps.create(topUpBody(e));
    await store.upsertOffer('topup', e, { remoteId: live.id, remoteStatus: 'listed', managed: true });
    await bulkArchive(ctx, [archiveAction('topup', e, live.id, { via: 'bulk-update', batch: 0, ifRefused: 'single' })]);
    expect(rec.calls).toEqual(['topUps.bulk']);
    expect(outcomes()).toEqual([`archived:${e}`]);
    expect((await raw.topUps.get({ id: live.id })).status).toBe('archived');
    expect((await store.getOffer('topup', e))?.remoteStatus).toBe('archived');
  });

  it('a bulk-remove whose count falls short, with the list failing too: each confirmed by its own GET', async () => {
    const es = [ext('a'), ext('a'), ext('a')];
    const lives = await Promise.all(es.map((e) => raw.accounts.create(accountBody(e))));
    await raw.accounts.archive({ id: lives[1]!.id });
    let client = overrideMethod(raw, 'accounts', 'bulkRemove', async (original, ...args) => {
      // Removes the first only, and says nothing of which.
      await original({ ids: [lives[0]!.id] }, args[1]);
      return { success: true, removed: 1 };
    });
    client = overrideMethod(client, 'accounts', 'list', () => {
      throw serverError('GET', '/api/v1/accounts');
    });
    client = overrideMethod(client, 'accounts', 'get', async (original, ...args) => {
      if ((args[0] as { id: number }).id === lives[2]!.id) throw serverError('GET', '/api/v1/accounts/x');
      return original(...args);
    });
    useClient(client);
    const route = { via: 'bulk-remove', batch: 0, ifRefused: 'single' } as const;
    await bulkArchive(
      ctx,
      es.map((e, i) => archiveAction('account', e, lives[i]!.id, route)),
    );
    expect(rec.calls.filter((c) => c === 'accounts.get')).toHaveLength(3);
    // Both found archived by their GET: neither is archived again.
    expect(rec.calls.filter((c) => c === 'accounts.archive')).toEqual([]);
    expect(outcomes().sort()).toEqual(
      [`archived:${es[0]}`, `archived:${es[1]}`, `failed:${es[2]}`].sort((a, b) => a.localeCompare(b)),
    );
    expect(ctx.outcomes.find((o) => o.externalId === es[2])?.message).toMatch(/^bulk-remove left it unconfirmed: /);
  });
});

describe('archive route edges', () => {
  it('an offer already gone: forgotten and reported skipped, not failed', async () => {
    const e = ext('i');
    await store.upsertOffer('item', e, { remoteId: 987_654_321, remoteStatus: 'listed', managed: true });
    await archiveOne(ctx, archiveAction('item', e, 987_654_321, { via: 'single' }));
    expect(outcomes()).toEqual([`skipped:${e}`]);
    expect(ctx.outcomes[0]?.message).toBe('already gone from the marketplace');
    expect(await store.getOffer('item', e)).toBeUndefined();
  });

  it('a top-up is archived by PATCH status=archived; a failure is reported with the reason', async () => {
    const e = ext('t');
    const live = await raw.topUps.create(topUpBody(e));
    await archiveOne(ctx, archiveAction('topup', e, live.id, { via: 'single' }));
    expect(rec.calls).toEqual(['topUps.update']);
    expect((await raw.topUps.get({ id: live.id })).status).toBe('archived');
    const other = ext('t');
    useClient(
      overrideMethod(raw, 'topUps', 'update', async () => {
        throw serverError('PATCH', '/api/v1/top-ups/1');
      }),
    );
    await archiveOne(ctx, archiveAction('topup', other, live.id, { via: 'single' }));
    expect(outcomes()).toEqual([`failed:${other}`]);
    expect(ctx.outcomes[0]?.message).toMatch(/^archive failed: .*server error/);
  });
});

describe('upload route edges', () => {
  it('an image that cannot be read fails, names the offers that need it, and is not sent', async () => {
    const img = image('broken');
    const upload: UploadAction = { type: 'upload', image: img, neededBy: ['a-1', 'a-2'] };
    const failed = await uploadImages(ctx, [upload], async () => {
      throw new Error('EACCES: permission denied');
    });
    expect([...failed]).toEqual([img.sha256]);
    expect(rec.calls).toEqual([]);
    expect(outcomes()).toEqual(['failed:images/broken.png']);
    expect(ctx.outcomes[0]).toMatchObject({ kind: 'image', file: 'images/broken.png' });
    expect(ctx.outcomes[0]?.message).toBe('upload failed: EACCES: permission denied; needed by a-1, a-2');
    expect(await store.getImage(img.sha256)).toBeUndefined();
  });

  it('records the uploaded image under its sha256 with the id the marketplace gave, and counts progress', async () => {
    const img = image('front');
    await uploadImages(ctx, [{ type: 'upload', image: img, neededBy: ['a-1'] }], async () => PNG);
    const saved = await store.getImage(img.sha256);
    expect(saved?.remoteId).toEqual(expect.any(Number));
    expect(await ctx.imageId(img.sha256)).toBe(saved?.remoteId);
    expect(progress).toEqual([1]);
    expect(await store.journalUnfinished()).toEqual([]);
    expect(ctx.outcomes).toEqual([{ kind: 'image', externalId: 'images/front.png', outcome: 'uploaded' }]);
    const listed = (await raw.images.list()).find((i) => i.id === saved?.remoteId);
    expect(saved?.url).toBe(listed?.url ?? null);
    expect(saved?.url).toEqual(expect.any(String));
    await uploadImages(ctx, [{ type: 'upload', image: img, neededBy: ['a-1'] }], async () => PNG);
    expect(ctx.outcomes[1]).toEqual({ kind: 'image', externalId: 'images/front.png', outcome: 'unchanged' });
  });

  it('reads the image from its file on disk when no reader is given, as a run does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offersync-upload-'));
    try {
      const img = { ...image('disk'), absPath: join(dir, 'disk.png') };
      writeFileSync(img.absPath, PNG);
      await uploadImages(ctx, [{ type: 'upload', image: img, neededBy: ['a-1'] }]);
      expect(ctx.outcomes).toEqual([{ kind: 'image', externalId: 'images/disk.png', outcome: 'uploaded' }]);
      expect((await store.getImage(img.sha256))?.remoteId).toEqual(expect.any(Number));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('route edges, continued', () => {
  const bulk = { via: 'bulk-update', batch: 0, ifRefused: 'patch' } as const;
  const patchOrReport = { via: 'patch', ifRefused: 'report' } as const;
  const lost = (method: string) => async () => {
    throw serverError(method, '/api/v1/x');
  };

  it.each([
    ['create', 'item', () => runCreate(ctx, createAction(desiredItem('j-create')))],
    [
      'update',
      'item',
      () =>
        runUpdate(ctx, updateAction(desiredItem('j-update'), 1, { via: 'patch', ifRefused: 'fail' }), {
          via: 'patch',
          ifRefused: 'fail',
        }),
    ],
    ['archive', 'item', () => archiveOne(ctx, archiveAction('item', 'j-archive', 1, { via: 'single' }))],
    [
      'bulk-update',
      'topup',
      () =>
        bulkUpdate(ctx, [
          updateAction(desiredTopUp('j-bulk-1'), 1, bulk),
          updateAction(desiredTopUp('j-bulk-2'), 2, bulk),
        ]),
    ],
    [
      'bulk-remove',
      'account',
      () =>
        bulkArchive(ctx, [
          archiveAction('account', 'j-remove', 1, { via: 'bulk-remove', batch: 0, ifRefused: 'single' }),
        ]),
    ],
    [
      'upload',
      'image',
      () =>
        uploadImages(
          ctx,
          [{ type: 'upload', image: { ...image('j'), sha256: 'j-sha' }, neededBy: ['x'] }],
          async () => PNG,
        ),
    ],
  ] as const)(
    'a %s whose outcome is unknown stays in the journal under its op, kind and keys',
    async (op, kind, run) => {
      let client = overrideMethod(raw, 'items', 'create', lost('POST'));
      client = overrideMethod(client, 'items', 'update', lost('PATCH'));
      client = overrideMethod(client, 'topUps', 'bulk', lost('POST'));
      client = overrideMethod(client, 'accounts', 'bulkRemove', lost('POST'));
      client = overrideMethod(client, 'items', 'findByExternalId', async () => null);
      const upload = client.images.upload.bind(client.images);
      client = {
        ...client,
        images: {
          ...client.images,
          upload: async (...args) => {
            await upload(...args);
            throw serverError('POST', '/api/v1/images');
          },
        },
      };
      useClient(client, 1);
      await run();
      const keys = {
        create: ['j-create'],
        update: ['j-update'],
        archive: ['j-archive'],
        'bulk-update': ['j-bulk-1', 'j-bulk-2'],
        'bulk-remove': ['j-remove'],
        upload: ['j-sha'],
      }[op];
      expect(await store.journalUnfinished()).toEqual([
        expect.objectContaining({ op, kind, keys, state: 'sent', runId: 'run-1' }),
      ]);
    },
  );

  it('adopting an account found on a create sends its credentials: the earlier body may not have landed', async () => {
    const d = { ...desiredAccount(ext('a')), credentials: { login: 'u', password: 'p-4711' }, credentialsHmac: 'hm' };
    await raw.accounts.create(accountBody(d.externalId));
    await runCreate(ctx, createAction(d, { verifyFirst: true }));
    expect(rec.calls).toEqual(['accounts.findByExternalId', 'accounts.update']);
    const stored = sandbox.dump().accounts.find((a) => a.external_id === d.externalId);
    expect(JSON.stringify(stored)).toContain('p-4711');
    expect(await store.getOffer('account', d.externalId)).toMatchObject({ credentialsHmac: 'hm' });
  });

  it('an adoption whose patch is blocked reports blocked only, with the mapping recorded', async () => {
    sandbox.setFaults({ disabled: ['accounts.update'] });
    const d = desiredAccount(ext('a'), { price: 4444 }, { source: { file: 'x.json' } });
    const live = await raw.accounts.create(accountBody(d.externalId));
    await runCreate(ctx, createAction(d, { verifyFirst: true, alignRoute: patchOrReport }));
    expect(outcomes()).toEqual([`blocked:${d.externalId}`]);
    expect(await store.getOffer('account', d.externalId)).toMatchObject({
      remoteId: live.id,
      managed: true,
      sourceFile: 'x.json',
      remoteStatus: 'listed',
      lastApplied: null,
    });
  });

  it('an adoption whose patch fails keeps the mapping, so the next run does not create it again', async () => {
    const d = desiredItem(ext('i'), { price: -3 });
    const live = await raw.items.create(itemBody(d.externalId));
    await runCreate(ctx, createAction(d, { verifyFirst: true }));
    expect(outcomes()).toEqual([`failed:${d.externalId}`]);
    expect(await store.getOffer('item', d.externalId)).toMatchObject({ remoteId: live.id, managed: true });
  });

  it('an account update whose image failed to upload is not sent', async () => {
    const img = image('front');
    ctx.failedUploads.add(img.sha256);
    const d = desiredAccount(ext('a'), {}, { images: [img] });
    await runUpdate(ctx, updateAction(d, 1, { via: 'patch', ifRefused: 'fail' }), { via: 'patch', ifRefused: 'fail' });
    expect(rec.calls).toEqual([]);
    expect(ctx.outcomes[0]).toMatchObject({
      outcome: 'failed',
      message: 'not sent: image images/front.png failed to upload',
    });
  });

  it('a blocked update names the fields it would have sent, never the credentials', async () => {
    sandbox.setFaults({ disabled: ['accounts.update'] });
    const d = {
      ...desiredAccount(ext('a'), { price: 2468 }),
      credentials: { login: 'u', password: 'p' },
      credentialsHmac: 'hm',
    };
    const live = await raw.accounts.create(accountBody(d.externalId));
    await runUpdate(ctx, updateAction(d, live.id, patchOrReport, { sendCredentials: true }), patchOrReport);
    expect(ctx.outcomes[0]).toMatchObject({ outcome: 'blocked', fields: ['price'] });
    expect(await store.getCapability(CAPABILITIES.accountUpdate)).toMatchObject({
      usable: false,
      detail: expect.stringMatching(/^405: /),
    });
  });

  it('the recreate route: archive, then create; refused with a 409, it says the listing is lost and why', async () => {
    const d = desiredAccount(ext('a'), { price: 1357 });
    const live = await raw.accounts.create(accountBody(d.externalId));
    const route = { via: 'recreate', ifRefused: 'report' } as const;
    await runUpdate(ctx, updateAction(d, live.id, route), route);
    expect(rec.calls).toEqual(['accounts.archive', 'accounts.create']);
    expect(outcomes()).toEqual([`failed:${d.externalId}`]);
    expect(ctx.outcomes[0]?.message).toMatch(
      new RegExp(
        `^archived #${live.id} to re-create it, but the marketplace refused the create ` +
          `\\(409: it keeps archived external_ids\\)\\. .*are now reported as blocked\\.`,
      ),
    );
    expect(await store.getCapability(CAPABILITIES.accountRecreate)).toMatchObject({
      usable: false,
      detail: expect.stringMatching(/^409 after archive: /),
    });
  });

  it('a re-create refused for the offer (422), not for the route, fails that offer only', async () => {
    const d = desiredAccount(ext('a'), { price: -9 });
    const live = await raw.accounts.create(accountBody(d.externalId));
    const route = { via: 'recreate', ifRefused: 'report' } as const;
    await runUpdate(ctx, updateAction(d, live.id, route), route);
    expect(outcomes()).toEqual([`failed:${d.externalId}`]);
    expect(await store.getCapability(CAPABILITIES.accountRecreate)).toBeUndefined();
  });

  it('bulk-update refused as a route: the detail remembered is the status and the message', async () => {
    sandbox.setFaults({ disabled: ['topUps.bulkUpdate'] });
    const t = desiredTopUp(ext('t'), { price: 111 });
    const live = await raw.topUps.create(topUpBody(t.externalId));
    await bulkUpdate(ctx, [updateAction(t, live.id, bulk)]);
    expect((await store.getCapability(CAPABILITIES.topUpBulkUpdate))?.detail).toMatch(/^404: /);
  });

  it('bulk-update answered with counts that say all were updated: applied, no read-back', async () => {
    sandbox.setRepresentation({ bulkCountsOnly: true });
    const ts = [desiredTopUp(ext('t'), { price: 121 }), desiredTopUp(ext('t'), { price: 122 })];
    const lives = await Promise.all(ts.map((t) => raw.topUps.create(topUpBody(t.externalId))));
    await bulkUpdate(
      ctx,
      ts.map((t, i) => ({ ...updateAction(t, lives[i]!.id, bulk), reason: 'adopted' as const })),
    );
    expect(rec.calls).toEqual(['topUps.bulk']);
    expect(ctx.outcomes.map((o) => `${o.kind}:${o.outcome}`)).toEqual(['topup:adopted', 'topup:adopted']);
    expect(ctx.outcomes[0]?.fields).toEqual(['price']);
    expect(await store.getOffer('topup', ts[1]!.externalId)).toMatchObject({
      remoteId: lives[1]!.id,
      lastApplied: { price: 122 },
    });
  });

  it('bulk-update answered with neither outcomes nor counts: read back through the list', async () => {
    const t = desiredTopUp(ext('t'), { price: 131 });
    const live = await raw.topUps.create(topUpBody(t.externalId));
    useClient(
      overrideMethod(raw, 'topUps', 'bulk', async (original, ...args) => {
        await original(...args);
        return { success: true };
      }),
    );
    await bulkUpdate(ctx, [updateAction(t, live.id, bulk)]);
    expect(rec.calls).toEqual(['topUps.bulk', 'topUps.list']);
    expect(outcomes()).toEqual([`updated:${t.externalId}`]);
  });

  it('bulk-update unconfirmed because the list fails too: each top-up reported failed', async () => {
    const t = desiredTopUp(ext('t'), { price: 141 });
    const live = await raw.topUps.create(topUpBody(t.externalId));
    let client = overrideMethod(raw, 'topUps', 'bulk', async () => ({ success: true }));
    client = overrideMethod(client, 'topUps', 'list', () => {
      throw serverError('GET', '/api/v1/top-ups');
    });
    useClient(client);
    await bulkUpdate(ctx, [updateAction(t, live.id, bulk)]);
    expect(ctx.outcomes).toEqual([
      expect.objectContaining({
        kind: 'topup',
        outcome: 'failed',
        message: expect.stringMatching(/^bulk-update left it unconfirmed: /),
      }),
    ]);
  });

  it('top-up archives by bulk-update the count leaves short: the list shows which, the rest go singly', async () => {
    const es = [ext('t'), ext('t')];
    const lives = await Promise.all(es.map((e) => raw.topUps.create(topUpBody(e))));
    useClient(
      overrideMethod(raw, 'topUps', 'bulk', async (original, ...args) => {
        await original(args[0], args[1], [(args[2] as unknown[])[0]], args[3]); // archives the first only
        return { success: true, counts: { updated: 1 } };
      }),
    );
    const route = { via: 'bulk-update', batch: 0, ifRefused: 'single' } as const;
    await bulkArchive(
      ctx,
      es.map((e, i) => archiveAction('topup', e, lives[i]!.id, route)),
    );
    expect(rec.calls).toEqual(['topUps.bulk', 'topUps.list', 'topUps.update']);
    expect(outcomes().sort()).toEqual(es.map((e) => `archived:${e}`).sort());
    expect((await raw.topUps.get({ id: lives[1]!.id })).status).toBe('archived');
  });

  it('bulk-remove failing as a whole fails each account, named by the route', async () => {
    const e = ext('a');
    useClient(overrideMethod(raw, 'accounts', 'bulkRemove', lost('POST')));
    await bulkArchive(ctx, [archiveAction('account', e, 1, { via: 'bulk-remove', batch: 0, ifRefused: 'single' })]);
    expect(ctx.outcomes).toEqual([
      expect.objectContaining({
        kind: 'account',
        externalId: e,
        outcome: 'failed',
        message: expect.stringMatching(/^bulk-remove failed: /),
      }),
    ]);
  });

  it('bulk-remove short of its count: what the list shows archived is done, one still listed goes singly', async () => {
    const es = [ext('a'), ext('a')];
    const lives = await Promise.all(es.map((e) => raw.accounts.create(accountBody(e))));
    useClient(
      overrideMethod(raw, 'accounts', 'bulkRemove', async (original, ...args) => {
        await original({ ids: [lives[0]!.id] }, args[1]);
        return { success: true, removed: 1 };
      }),
    );
    const route = { via: 'bulk-remove', batch: 0, ifRefused: 'single' } as const;
    await bulkArchive(
      ctx,
      es.map((e, i) => archiveAction('account', e, lives[i]!.id, route)),
    );
    expect(rec.calls).toEqual(['accounts.bulkRemove', 'accounts.list', 'accounts.archive']);
    expect(outcomes().sort()).toEqual(es.map((e) => `archived:${e}`).sort());
  });

  it('bulk-remove confirmed by GET: one still listed is archived singly, one gone is reported skipped', async () => {
    const es = [ext('a'), ext('a')];
    const listed = await raw.accounts.create(accountBody(es[0]!));
    let client = overrideMethod(raw, 'accounts', 'bulkRemove', async () => ({ success: true, removed: 0 }));
    client = overrideMethod(client, 'accounts', 'list', () => {
      throw serverError('GET', '/api/v1/accounts');
    });
    useClient(client);
    await store.upsertOffer('account', es[1]!, { remoteId: 987_654_320, managed: true });
    const route = { via: 'bulk-remove', batch: 0, ifRefused: 'single' } as const;
    await bulkArchive(ctx, [
      archiveAction('account', es[0]!, listed.id, route),
      archiveAction('account', es[1]!, 987_654_320, route),
    ]);
    expect(rec.calls.filter((c) => c === 'accounts.archive')).toEqual(['accounts.archive']);
    expect((await raw.accounts.get({ id: listed.id })).status).toBe('archived');
    expect(outcomes().sort()).toEqual([`archived:${es[0]}`, `skipped:${es[1]}`].sort());
    expect(await store.getOffer('account', es[1]!)).toBeUndefined();
  });
});

describe('route edges the mutants found untested', () => {
  const bulk = { via: 'bulk-update', batch: 0, ifRefused: 'patch' } as const;
  const removeRoute = { via: 'bulk-remove', batch: 0, ifRefused: 'single' } as const;
  const lost = (method: string) => async () => {
    throw serverError(method, '/api/v1/x');
  };

  it('a bulk-update of two fields that the list shows half applied sends the top-up again by PATCH', async () => {
    const t = desiredTopUp(ext('t'), { price: 151, stock: 7 });
    const live = await raw.topUps.create(topUpBody(t.externalId));
    useClient(
      overrideMethod(raw, 'topUps', 'bulk', async (original, ...args) => {
        // The marketplace takes the price and drops the stock, and its counts say nothing of either.
        const [el] = args[2] as { stock?: number }[];
        await original(args[0], args[1], [{ ...el, stock: undefined }], args[3]);
        return { success: true };
      }),
    );
    const changes = [
      { field: 'price', from: 999, to: 151, why: 'changed' },
      { field: 'stock', from: 10, to: 7, why: 'changed' },
    ] as const;
    await bulkUpdate(ctx, [updateAction(t, live.id, bulk, { changes: [...changes] })]);
    expect(rec.calls).toEqual(['topUps.bulk', 'topUps.list', 'topUps.update']);
    expect(outcomes()).toEqual([`updated:${t.externalId}`]);
    const after = await raw.topUps.get({ id: live.id });
    expect(after.fields).toMatchObject({ price: 151, stock: 7 });
  });

  it('a bulk-update confirmed by a list that does not echo the field sent: taken as applied, no PATCH', async () => {
    const t = desiredTopUp(ext('t'), { stock: 4 });
    const live = await raw.topUps.create(topUpBody(t.externalId));
    let client = overrideMethod(raw, 'topUps', 'bulk', async (original, ...args) => {
      await original(...args);
      return { success: true };
    });
    client = mapListPages(client, 'topUps', (page) => ({
      ...page,
      items: page.items.map((o) => ({ ...o, fields: { ...o.fields, stock: undefined } })),
    }));
    useClient(client);
    const changes = [{ field: 'stock', from: 10, to: 4, why: 'changed' } as const];
    await bulkUpdate(ctx, [updateAction(t, live.id, bulk, { changes })]);
    expect(rec.calls).toEqual(['topUps.bulk', 'topUps.list']);
    expect(outcomes()).toEqual([`updated:${t.externalId}`]);
  });

  it('a bulk-remove short of its count, for an account the list no longer holds: archived singly, gone', async () => {
    const e = ext('a');
    useClient(overrideMethod(raw, 'accounts', 'bulkRemove', async () => ({ success: true, removed: 0 })));
    await store.upsertOffer('account', e, { remoteId: 987_654_322, managed: true });
    await bulkArchive(ctx, [archiveAction('account', e, 987_654_322, removeRoute)]);
    expect(rec.calls).toEqual(['accounts.bulkRemove', 'accounts.list', 'accounts.archive']);
    expect(outcomes()).toEqual([`skipped:${e}`]);
    expect(await store.getOffer('account', e)).toBeUndefined();
  });

  it('an account PATCH answered 405 is the route refused even if the offer is gone: learnt, blocked', async () => {
    const d = desiredAccount(ext('a'), { price: 2468 });
    useClient(
      overrideMethod(raw, 'accounts', 'update', async () => {
        throw new MethodNotAllowedError({ method: 'PATCH', path: '/api/v1/accounts/987654323', status: 405 });
      }),
    );
    const route = { via: 'patch', ifRefused: 'report' } as const;
    await runUpdate(ctx, updateAction(d, 987_654_323, route), route);
    expect(rec.calls).toEqual(['accounts.update', 'accounts.get']);
    expect(outcomes()).toEqual([`blocked:${d.externalId}`]);
    expect(await store.getCapability(CAPABILITIES.accountUpdate)).toMatchObject({ usable: false });
  });

  it('a re-create whose archive is lost stays in the journal as a recreate of that account', async () => {
    const d = desiredAccount(ext('a'), { price: 1470 });
    const live = await raw.accounts.create(accountBody(d.externalId));
    useClient(overrideMethod(raw, 'accounts', 'archive', lost('PATCH')), 1);
    const route = { via: 'recreate', ifRefused: 'report' } as const;
    await runUpdate(ctx, updateAction(d, live.id, route), route);
    expect(rec.calls).toEqual(['accounts.archive']);
    expect(await store.journalUnfinished()).toEqual([
      expect.objectContaining({ op: 'recreate', kind: 'account', keys: [d.externalId], state: 'sent' }),
    ]);
  });

  it('a re-create whose create is lost stays in the journal as a create of that account, to be looked up', async () => {
    const d = desiredAccount(ext('a'), { price: 1471 });
    const live = await raw.accounts.create(accountBody(d.externalId));
    useClient(overrideMethod(raw, 'accounts', 'create', lost('POST')), 1);
    const route = { via: 'recreate', ifRefused: 'report' } as const;
    await runUpdate(ctx, updateAction(d, live.id, route), route);
    expect(rec.calls).toEqual(['accounts.archive', 'accounts.create']);
    expect(await store.journalUnfinished()).toEqual([
      expect.objectContaining({ op: 'create', kind: 'account', keys: [d.externalId], state: 'sent' }),
    ]);
  });
});
