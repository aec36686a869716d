// The executor on hand-made plans, against the sandbox through a recording client: the order of the phases
// (uploads, then creates and updates, archives last), one outcome per offer, nothing sent when the guard
// tripped, no archive once stopped, and the progress it reports. reconcile.test.ts runs it end to end.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DesiredAccount, DesiredItem, DesiredTopUp, ImageRef } from '../../src/catalogue/desired-offer.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { openStateStore, type KyselyStateStore } from '../../src/state/open-state-store.ts';
import { type ExecutorDeps, execute } from '../../src/sync/executor.ts';
import type { Plan, PlanAction, UpdateAction } from '../../src/sync/plan.ts';
import {
  accountBody,
  ext,
  itemBody,
  PNG,
  type Sandbox,
  sandboxAndClient,
  topUpBody,
} from '../marketplace/support/contract.ts';
import { type RecordingClient, recordingClient } from '../support/recording-client.ts';

let sandbox: Sandbox;
let raw: MarketplaceClient;
let close: () => Promise<void>;
let store: KyselyStateStore;
let rec: RecordingClient;
let dir: string;

beforeAll(async () => {
  ({ sandbox, client: raw, close } = await sandboxAndClient());
});
afterAll(() => close());
beforeEach(async () => {
  store = await openStateStore(':memory:');
  rec = recordingClient(raw);
  dir = mkdtempSync(join(tmpdir(), 'offersync-executor-'));
});
afterEach(() => {
  sandbox.setFaults({});
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const source = { file: 'x.json' };
const item = (externalId: string, fields: Partial<DesiredItem['fields']> = {}): DesiredItem => ({
  kind: 'item',
  externalId,
  hash: 'h',
  source,
  fields: { title: `Item ${externalId}`, price: 250, type: 'skin', game: 'lol', server: 'euw', stock: 5, ...fields },
});
const account = (externalId: string, images: ImageRef[] = []): DesiredAccount => ({
  kind: 'account',
  externalId,
  hash: 'h',
  source,
  fields: { title: `Account ${externalId}`, price: 1999, game: 'lol', status: 'listed', level: 30 },
  images,
});
const topUp = (externalId: string, price: number): DesiredTopUp => ({
  kind: 'topup',
  externalId,
  hash: 'h',
  source,
  fields: { ...(topUpBody(externalId) as DesiredTopUp['fields']), price },
});
const noGuard = { tripped: false, archives: 0, limit: 100 };
const planOf = (actions: PlanAction[], guard: Plan['guard'] = noGuard): Plan => ({
  actions,
  guard,
  priceGuard: { tripped: false, priced: 0, suspect: [], limit: 2 },
  soldCounts: [],
  archiveSuppressed: [],
  warnings: [],
});
function deps(over: Partial<ExecutorDeps> = {}): ExecutorDeps {
  return {
    client: rec.client,
    store,
    logger: silentLogger,
    runId: 'run-1',
    statePath: join(dir, 'state.db'),
    options: { createAttempts: 2 },
    readImage: async () => PNG,
    ...over,
  };
}
const create = (d: DesiredItem | DesiredAccount, imagesPending = false): PlanAction => ({
  type: 'create',
  kind: d.kind,
  externalId: d.externalId,
  desired: d,
  fields: d.fields,
  imagesPending,
  verifyFirst: false,
  alignRoute: { via: 'patch', ifRefused: 'fail' },
  reason: 'new in the catalogue',
});
const update = (d: DesiredItem | DesiredTopUp, remoteId: number, route: UpdateAction['route']): UpdateAction => ({
  type: 'update',
  kind: d.kind,
  externalId: d.externalId,
  remoteId,
  desired: d,
  changes: [{ field: 'price', from: 1, to: d.fields.price ?? 0, why: 'changed' }],
  fields: d.fields,
  imagesPending: false,
  sendCredentials: false,
  sendImages: false,
  route,
  reason: 'changed',
});
const archiveOf = (kind: 'item' | 'account', externalId: string, remoteId: number): PlanAction => ({
  type: 'archive',
  kind,
  externalId,
  remoteId,
  route: { via: 'single' },
  reason: 'removed from the catalogue',
});
const img = (): ImageRef => ({
  path: 'images/a.png',
  absPath: '/nowhere/a.png',
  sha256: ext('sha'),
  sizeBytes: PNG.length,
  mimeType: 'image/png',
});

describe('execute', () => {
  it('uploads first, then creates and updates, archives last; one outcome each, progress to the total', async () => {
    const image = img();
    const [a, i, gone] = [account(ext('a'), [image]), item(ext('i'), { price: 321 }), ext('i')];
    const liveI = await raw.items.create(itemBody(i.externalId));
    const liveGone = await raw.items.create(itemBody(gone));
    const progress: [number, number][] = [];
    const out = await execute(
      planOf([
        archiveOf('item', gone, liveGone.id),
        update(i, liveI.id, { via: 'patch', ifRefused: 'fail' }),
        create(a, true),
        { type: 'upload', image, neededBy: [a.externalId] },
        { type: 'noop', kind: 'item', externalId: 'quiet', reason: 'unchanged' },
      ]),
      deps({ onProgress: (done, total) => progress.push([done, total]) }),
    );
    expect(rec.calls[0]).toBe('images.upload');
    expect(rec.calls.at(-1)).toBe('items.update'); // the archive: PATCH status=archived
    expect(rec.calls.slice(1, 3).sort()).toEqual(['accounts.create', 'items.update']);
    expect(out.map((o) => `${o.outcome}:${o.externalId}`).sort()).toEqual(
      [
        `archived:${gone}`,
        `created:${a.externalId}`,
        `updated:${i.externalId}`,
        'unchanged:quiet',
        'uploaded:images/a.png',
      ].sort(),
    );
    expect(progress.map(([d]) => d)).toEqual([1, 2, 3, 4]);
    expect(progress.every(([, total]) => total === 4)).toBe(true);
    const created = await raw.accounts.findByExternalId(a.externalId);
    expect(created?.fields.image_ids).toEqual([(await store.getImage(image.sha256))?.remoteId]);
  });

  it('sends nothing when the mass-archive guard tripped', async () => {
    const gone = ext('i');
    const live = await raw.items.create(itemBody(gone));
    const guard = { tripped: true, archives: 30, limit: 25 };
    const out = await execute(planOf([archiveOf('item', gone, live.id), create(item(ext('i')))], guard), deps());
    expect(rec.calls).toEqual([]);
    expect(out).toEqual([]);
    expect((await raw.items.get({ id: live.id })).status).toBe('listed');
  });

  it('an offer whose image failed to upload is not created; the others are', async () => {
    const image = img();
    const [a, b] = [account(ext('a'), [image]), account(ext('a'))];
    const out = await execute(
      planOf([{ type: 'upload', image, neededBy: [a.externalId] }, create(a, true), create(b)]),
      deps({
        readImage: async () => {
          throw new Error('unreadable');
        },
      }),
    );
    expect(rec.calls).toEqual(['accounts.create']);
    expect(out.find((o) => o.externalId === a.externalId)).toMatchObject({ outcome: 'failed' });
    expect(out.find((o) => o.externalId === b.externalId)).toMatchObject({ outcome: 'created' });
  });

  it('an adoption followed by an update records the mapping and reports once, as the update', async () => {
    const i = item(ext('i'), { price: 777 });
    const live = await raw.items.create(itemBody(i.externalId));
    const remote = { id: live.id, externalId: i.externalId, status: 'listed', fields: {} };
    const upd = { ...update(i, live.id, { via: 'patch', ifRefused: 'fail' }), reason: 'adopted' } as const;
    const adopt: PlanAction = {
      type: 'adopt',
      kind: 'item',
      externalId: i.externalId,
      remote,
      desired: i,
      fields: i.fields,
      reason: 'found',
    };
    const out = await execute(planOf([adopt, upd]), deps());
    expect(rec.calls).toEqual(['items.update']);
    expect(out.map((o) => `${o.outcome}:${o.externalId}`)).toEqual([`adopted:${i.externalId}`]);
    expect((await store.getOffer('item', i.externalId))?.lastApplied).toMatchObject({ price: 777 });
  });

  it('an adoption alone sends nothing and records the live offer as applied', async () => {
    const i = item(ext('i'));
    const live = await raw.items.create(itemBody(i.externalId));
    const remote = { id: live.id, externalId: i.externalId, status: 'listed', fields: {} };
    const adopt: PlanAction = {
      type: 'adopt',
      kind: 'item',
      externalId: i.externalId,
      remote,
      desired: i,
      fields: i.fields,
      reason: 'found',
    };
    const progress: number[] = [];
    const out = await execute(planOf([adopt]), deps({ onProgress: (done) => progress.push(done) }));
    expect(rec.calls).toEqual([]);
    expect(out.map((o) => `${o.outcome}:${o.externalId}`)).toEqual([`adopted:${i.externalId}`]);
    expect(progress).toEqual([1]);
    expect(await store.getOffer('item', i.externalId)).toMatchObject({ remoteId: live.id, managed: true });
    expect((await store.getOffer('item', i.externalId))?.lastApplied).toMatchObject({ price: 250 });
  });

  it('archives planned in bulk go by their bulk route, the single ones by their own call', async () => {
    const [a, b, i] = [ext('a'), ext('a'), ext('i')];
    const [la, lb] = [await raw.accounts.create(accountBody(a)), await raw.accounts.create(accountBody(b))];
    const li = await raw.items.create(itemBody(i));
    const bulk = { via: 'bulk-remove', batch: 0, ifRefused: 'single' } as const;
    const out = await execute(
      planOf([
        { type: 'archive', kind: 'account', externalId: a, remoteId: la.id, route: bulk, reason: 'removed' },
        { type: 'archive', kind: 'account', externalId: b, remoteId: lb.id, route: bulk, reason: 'removed' },
        archiveOf('item', i, li.id),
      ]),
      deps(),
    );
    expect(rec.calls.sort()).toEqual(['accounts.bulkRemove', 'items.update']);
    expect(out.map((o) => `${o.outcome}:${o.externalId}`).sort()).toEqual(
      [`archived:${a}`, `archived:${b}`, `archived:${i}`].sort(),
    );
  });

  it('top-ups planned in bulk go in one call; single-route ones by their own PATCH', async () => {
    const ts = [topUp(ext('t'), 801), topUp(ext('t'), 802), topUp(ext('t'), 803)];
    const lives = await Promise.all(ts.map((t) => raw.topUps.create(topUpBody(t.externalId))));
    const bulk = { via: 'bulk-update', batch: 0, ifRefused: 'patch' } as const;
    const out = await execute(
      planOf([
        update(ts[0]!, lives[0]!.id, bulk),
        update(ts[1]!, lives[1]!.id, bulk),
        update(ts[2]!, lives[2]!.id, { via: 'patch', ifRefused: 'fail' }),
      ]),
      deps(),
    );
    expect(rec.calls.sort()).toEqual(['topUps.bulk', 'topUps.update']);
    expect(out.map((o) => o.outcome)).toEqual(['updated', 'updated', 'updated']);
  });

  it('once stopped, starts no write and no archive', async () => {
    const gone = ext('i');
    const live = await raw.items.create(itemBody(gone));
    const stop = new AbortController();
    stop.abort();
    const out = await execute(
      planOf([create(item(ext('i'))), archiveOf('item', gone, live.id)]),
      deps({ signal: stop.signal }),
    );
    expect(rec.calls).toEqual([]);
    // Archives are not even begun: only the create is reported (as not sent).
    expect(out.map((o) => o.externalId)).not.toContain(gone);
    expect((await raw.items.get({ id: live.id })).status).toBe('listed');
  });

  it('archives still go when another offer failed, and a sale seen by a noop lands in sold.jsonl', async () => {
    const gone = ext('i');
    const live = await raw.items.create(itemBody(gone));
    const bad = item(ext('i'), { price: -1 });
    const out = await execute(
      planOf([
        create(bad),
        archiveOf('item', gone, live.id),
        { type: 'noop', kind: 'item', externalId: 'sold-1', reason: 'sold', remoteId: 5, detail: 'sold' },
      ]),
      deps(),
    );
    expect(out.find((o) => o.externalId === bad.externalId)?.outcome).toBe('failed');
    expect(out.find((o) => o.externalId === gone)?.outcome).toBe('archived');
    const sold = readFileSync(join(dir, 'sold.jsonl'), 'utf8').trim().split('\n');
    expect(sold.map((l) => JSON.parse(l) as { external_id: string }).map((s) => s.external_id)).toEqual(['sold-1']);
  });
});
