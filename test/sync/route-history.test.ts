// What each executor route tells in an offer's story (docs/architecture.md, History), route by route against the
// sandbox: the write sent, its route, the fields it changed and why, the marketplace's answer, and what offersync
// saw on the way (an edit on the website it patches back, an offer found already listed, one gone). `offersync
// history` shows these to the seller. offer-history.run.test.ts follows whole runs.
import { beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.ts';
import { ServerError } from '../../src/marketplace/marketplace-errors.ts';
import { QueueClearedError } from '../../src/queue/queue-cleared-error.ts';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import type { StateKind } from '../../src/state/records.ts';
import { archiveOne } from '../../src/sync/execute/route-archive.ts';
import { bulkArchive, bulkUpdate } from '../../src/sync/execute/route-bulk.ts';
import { runCreate } from '../../src/sync/execute/route-create.ts';
import { runUpdate } from '../../src/sync/execute/route-update.ts';
import { RunContext } from '../../src/sync/execute/run-context.ts';
import { ext } from '../marketplace/support/contract.ts';
import { overrideMethod } from '../support/client-override.ts';
import { accountBody, desiredAccount, desiredItem, desiredTopUp, itemBody, topUpBody } from '../support/offers.ts';
import { archiveAction, createAction, updateAction } from '../support/plan-actions.ts';
import { useSandboxRun } from './support/sandbox-run.ts';

const { sandbox, raw, store } = useSandboxRun();
let ctx: RunContext;

beforeEach(() => {
  useClient(raw);
});

function useClient(client: MarketplaceClient): void {
  ctx = new RunContext({ client, store, logger: silentLogger, runId: 'run-1', createAttempts: 1 });
}

/** The offer's story as `offersync history` reads it, without ids and times. */
async function story(kind: StateKind, externalId: string) {
  await ctx.flushEvents();
  return (await store.offerHistory(kind, externalId, 100)).map((e) => ({
    type: e.type,
    route: e.route,
    detail: e.detail,
    answer: e.answer,
    changes: e.changes,
  }));
}

const TAKEN = { outcome: 'ok', status: null, message: null };
const lost = (method: string) => async () => {
  throw new ServerError({ method, path: '/api/v1/x', status: 503 });
};
const patch = { via: 'patch', ifRefused: 'fail' } as const;

describe('creates', () => {
  it('a create tells every field it sent, and an account its credentials by name only', async () => {
    const d = { ...desiredAccount(ext('a'), { price: 1200 }), credentials: { login: 'u', password: 'pw-story-1' } };
    await runCreate(ctx, createAction(d, { reason: 'new in the catalogue' }));
    const [created, ...rest] = await story('account', d.externalId);
    expect(rest).toEqual([]);
    expect(created).toMatchObject({
      type: 'created',
      route: 'POST /api/v1/accounts',
      detail: 'new in the catalogue',
      answer: TAKEN,
    });
    expect(created?.changes).toContainEqual({ field: 'price', to: 1200 });
    expect(created?.changes.at(-1)).toEqual({ field: 'credentials' });
    expect(JSON.stringify(created)).not.toContain('pw-story-1');
  });

  it('an item create tells no credentials; a refused one tells the status and message', async () => {
    const d = desiredItem(ext('i'), { price: -5 });
    await runCreate(ctx, createAction(d));
    const [refused, ...rest] = await story('item', d.externalId);
    expect(rest).toEqual([]);
    expect(refused).toMatchObject({
      type: 'created',
      route: 'POST /api/v1/items',
      answer: { outcome: 'refused', status: 422 },
    });
    expect(refused?.answer?.message).toEqual(expect.any(String));
    expect(refused?.changes.map((c) => c.field)).not.toContain('credentials');
  });

  it('a create found already listed tells the adoption, then the patch that aligned it', async () => {
    const d = desiredItem(ext('i'), { price: 4321 });
    await raw.items.create(itemBody(d.externalId));
    await runCreate(ctx, createAction(d, { verifyFirst: true }));
    expect(await story('item', d.externalId)).toEqual([
      {
        type: 'adopted',
        route: null,
        detail: 'already listed under its external_id when created: adopted',
        answer: null,
        changes: [],
      },
      {
        type: 'updated',
        route: 'PATCH /api/v1/items/:id',
        detail: 'found under its external_id: aligned with the catalogue',
        answer: TAKEN,
        changes: [{ field: 'price', from: 250, to: 4321, why: 'changed' }],
      },
    ]);
  });

  it('an aligning patch that fails tells its answer after the adoption', async () => {
    const d = desiredItem(ext('i'), { price: -3 });
    await raw.items.create(itemBody(d.externalId));
    await runCreate(ctx, createAction(d, { verifyFirst: true }));
    const events = await story('item', d.externalId);
    expect(events.map((e) => [e.type, e.route, e.detail, e.answer?.outcome, e.answer?.status])).toEqual([
      ['adopted', null, 'already listed under its external_id when created: adopted', undefined, undefined],
      ['updated', 'PATCH /api/v1/items/:id', 'found under its external_id: aligned with the catalogue', 'refused', 422],
    ]);
  });

  it('an adopted account is aligned with its credentials, told by name', async () => {
    const d = { ...desiredAccount(ext('a'), { price: 999 }), credentials: { login: 'u', password: 'pw-story-2' } };
    await raw.accounts.create(accountBody(d.externalId, { price: 999 }));
    await runCreate(ctx, createAction(d, { verifyFirst: true }));
    const updated = (await story('account', d.externalId)).find((e) => e.type === 'updated');
    expect(updated?.changes.at(-1)).toEqual({ field: 'credentials' });
    expect(JSON.stringify(updated)).not.toContain('pw-story-2');
  });

  it('an account with no credentials in its file tells none, created or aligned', async () => {
    const created = desiredAccount(ext('a'), { price: 1300 });
    await runCreate(ctx, createAction(created));
    const [told] = await story('account', created.externalId);
    expect(told).toMatchObject({ type: 'created', answer: TAKEN });
    expect(told?.changes.map((c) => c.field)).not.toContain('credentials');

    const aligned = desiredAccount(ext('a'), { price: 1301 });
    await raw.accounts.create(accountBody(aligned.externalId, { price: 999 }));
    await runCreate(ctx, createAction(aligned, { verifyFirst: true }));
    const updated = (await story('account', aligned.externalId)).find((e) => e.type === 'updated');
    expect(updated?.answer).toEqual(TAKEN);
    expect(updated?.changes).toContainEqual({ field: 'price', from: 999, to: 1301, why: 'changed' });
    expect(updated?.changes.map((c) => c.field)).not.toContain('credentials');
  });
});

describe('updates', () => {
  it('an update tells each field from, to and why, and the catalogue change that caused it', async () => {
    const d = desiredItem(ext('i'), { price: 901 });
    const live = await raw.items.create(itemBody(d.externalId));
    await runUpdate(ctx, updateAction(d, live.id, patch), patch);
    expect(await story('item', d.externalId)).toEqual([
      {
        type: 'updated',
        route: 'PATCH /api/v1/items/:id',
        detail: 'changed in the catalogue',
        answer: TAKEN,
        changes: [{ field: 'price', from: 1, to: 901, why: 'changed' }],
      },
    ]);
  });

  it('a patch back of an edit on the website tells the edit first, then the patch', async () => {
    const d = desiredItem(ext('i'), { price: 600 });
    const live = await raw.items.create(itemBody(d.externalId, { price: 650 }));
    const changes = [{ field: 'price', from: 650, to: 600, why: 'drift' }] as const;
    await runUpdate(ctx, updateAction(d, live.id, patch, { changes: [...changes], reason: 'drift' }), patch);
    expect(await story('item', d.externalId)).toEqual([
      {
        type: 'edited-on-website',
        route: null,
        detail: null,
        answer: null,
        changes: [{ field: 'price', from: 600, to: 650 }],
      },
      {
        type: 'updated',
        route: 'PATCH /api/v1/items/:id',
        detail: null,
        answer: TAKEN,
        changes: [{ field: 'price', from: 650, to: 600, why: 'drift' }],
      },
    ]);
  });

  it('an account update tells new credentials by name, and a refused one the answer', async () => {
    const d = {
      ...desiredAccount(ext('a'), { price: 2222 }),
      credentials: { login: 'u', password: 'pw-story-3' },
      credentialsHmac: 'hm',
    };
    const live = await raw.accounts.create(accountBody(d.externalId));
    await runUpdate(ctx, updateAction(d, live.id, patch, { sendCredentials: true }), patch);
    const [updated] = await story('account', d.externalId);
    expect(updated?.changes).toEqual([{ field: 'price', from: 1, to: 2222, why: 'changed' }, { field: 'credentials' }]);

    const bad = desiredAccount(ext('a'), { price: -1 });
    const badLive = await raw.accounts.create(accountBody(bad.externalId));
    await runUpdate(ctx, updateAction(bad, badLive.id, patch), patch);
    const [refused] = await story('account', bad.externalId);
    expect(refused).toMatchObject({ type: 'updated', answer: { outcome: 'refused', status: 422 } });
  });

  it('a re-create tells its route as the archive then the create, and the answer', async () => {
    const d = desiredAccount(ext('a'), { price: 1357 });
    const live = await raw.accounts.create(accountBody(d.externalId));
    useClient(overrideMethod(raw, 'accounts', 'create', lost('POST')));
    const route = { via: 'recreate', ifRefused: 'report' } as const;
    await runUpdate(ctx, updateAction(d, live.id, route), route);
    expect(await story('account', d.externalId)).toEqual([
      expect.objectContaining({
        type: 'updated',
        route: 'DELETE /api/v1/accounts/:id, then POST /api/v1/accounts',
        answer: expect.objectContaining({ outcome: 'unknown', status: 503 }),
      }),
    ]);
  });

  it('a top-up bulk-update tells each top-up updated by the bulk route', async () => {
    const t = desiredTopUp(ext('t'), { price: 431 });
    const live = await raw.topUps.create(topUpBody(t.externalId));
    await bulkUpdate(ctx, [updateAction(t, live.id, { via: 'bulk-update', batch: 0, ifRefused: 'patch' })]);
    expect(await story('topup', t.externalId)).toEqual([
      {
        type: 'updated',
        route: 'POST /api/v1/top-ups/bulk-update',
        detail: 'changed in the catalogue',
        answer: TAKEN,
        changes: [{ field: 'price', from: 1, to: 431, why: 'changed' }],
      },
    ]);
  });

  it('a bulk-update whose answer is lost tells each top-up the unknown answer', async () => {
    const t = desiredTopUp(ext('t'), { price: 432 });
    useClient(overrideMethod(raw, 'topUps', 'bulk', lost('POST')));
    await bulkUpdate(ctx, [updateAction(t, 77, { via: 'bulk-update', batch: 0, ifRefused: 'patch' })]);
    expect(await story('topup', t.externalId)).toEqual([
      expect.objectContaining({
        type: 'updated',
        route: 'POST /api/v1/top-ups/bulk-update',
        answer: expect.objectContaining({ outcome: 'unknown', status: 503 }),
      }),
    ]);
  });
});

describe('archives', () => {
  it('an archive tells its route and why; an offer gone tells that it was forgotten', async () => {
    const e = ext('i');
    const live = await raw.items.create(itemBody(e));
    await archiveOne(ctx, archiveAction('item', e, live.id, { via: 'single' }, { reason: 'removed: file deleted' }));
    expect(await story('item', e)).toEqual([
      {
        type: 'archived',
        route: 'PATCH /api/v1/items/:id',
        detail: 'removed: file deleted',
        answer: TAKEN,
        changes: [],
      },
    ]);
    const gone = ext('i');
    await store.upsertOffer('item', gone, { remoteId: 987_654_301, managed: true });
    await archiveOne(ctx, archiveAction('item', gone, 987_654_301));
    expect(await story('item', gone)).toEqual([
      {
        type: 'gone',
        route: null,
        detail: 'already gone from the marketplace when archived: forgotten',
        answer: null,
        changes: [],
      },
    ]);
  });

  it('an item archive whose answer is lost tells the unknown answer, and no field changed', async () => {
    const e = ext('i');
    useClient(overrideMethod(raw, 'items', 'update', lost('PATCH')));
    await archiveOne(ctx, archiveAction('item', e, 80, { via: 'single' }, { reason: 'removed: file deleted' }));
    expect(await story('item', e)).toEqual([
      {
        type: 'archived',
        route: 'PATCH /api/v1/items/:id',
        detail: 'removed: file deleted',
        answer: expect.objectContaining({ outcome: 'unknown', status: 503 }),
        changes: [],
      },
    ]);
  });

  it('a bulk-remove of accounts tells each archived by it; one lost tells the unknown answer', async () => {
    const e = ext('a');
    const live = await raw.accounts.create(accountBody(e));
    const route = { via: 'bulk-remove', batch: 0, ifRefused: 'single' } as const;
    await bulkArchive(ctx, [archiveAction('account', e, live.id, route, { reason: 'removed' })]);
    expect(await story('account', e)).toEqual([
      { type: 'archived', route: 'POST /api/v1/accounts/bulk-remove', detail: 'removed', answer: TAKEN, changes: [] },
    ]);
    const other = ext('a');
    useClient(overrideMethod(raw, 'accounts', 'bulkRemove', lost('POST')));
    await bulkArchive(ctx, [archiveAction('account', other, 5, route)]);
    expect(await story('account', other)).toEqual([
      {
        type: 'archived',
        route: 'POST /api/v1/accounts/bulk-remove',
        detail: null,
        answer: expect.objectContaining({ outcome: 'unknown', status: 503 }),
        changes: [],
      },
    ]);
  });

  it('a top-up archive by a failing bulk-update tells each top-up the answer, with why it was archived', async () => {
    const t = ext('t');
    useClient(overrideMethod(raw, 'topUps', 'bulk', lost('POST')));
    const route = { via: 'bulk-update', batch: 0, ifRefused: 'single' } as const;
    await bulkArchive(ctx, [archiveAction('topup', t, 6, route, { reason: 'removed' })]);
    expect(await story('topup', t)).toEqual([
      {
        type: 'archived',
        route: 'POST /api/v1/top-ups/bulk-update',
        detail: 'removed',
        answer: expect.objectContaining({ outcome: 'unknown', status: 503 }),
        changes: [],
      },
    ]);
    expect(ctx.outcomes).toEqual([
      expect.objectContaining({
        kind: 'topup',
        outcome: 'failed',
        message: expect.stringMatching(/^bulk-update failed: /),
      }),
    ]);
  });

  it('a bulk answer that refuses an archive tells the refusal, then the single archive', async () => {
    sandbox.setBulk({ undocumented: true, failEvery: 1 });
    try {
      const e = ext('t');
      const live = await raw.topUps.create(topUpBody(e));
      const route = { via: 'bulk-update', batch: 0, ifRefused: 'single' } as const;
      await bulkArchive(ctx, [archiveAction('topup', e, live.id, route, { reason: 'removed' })]);
      expect((await story('topup', e)).map((s) => [s.type, s.route, s.detail, s.answer?.outcome])).toEqual([
        ['archived', 'POST /api/v1/top-ups/bulk-update', 'removed', 'refused'],
        ['archived', 'PATCH /api/v1/top-ups/:id', 'removed', 'ok'],
      ]);
    } finally {
      sandbox.setBulk({});
    }
  });
});

describe('writes the run never sent (their queue cleared as it stopped)', () => {
  const cleared = (method: string) => async () => {
    throw new QueueClearedError(method, '/api/v1/x');
  };
  const stories = async (kind: StateKind, ...externalIds: string[]) =>
    Promise.all(externalIds.map(async (e) => (await story(kind, e)).map((s) => s.type)));

  it('tell nothing of the write: an update, an aligning patch, an item archive', async () => {
    const updated = desiredItem(ext('i'), { price: 2468 });
    const live = await raw.items.create(itemBody(updated.externalId));
    const aligned = desiredItem(ext('i'), { price: 2469 });
    await raw.items.create(itemBody(aligned.externalId));
    const archived = ext('i');
    const toArchive = await raw.items.create(itemBody(archived));
    useClient(overrideMethod(raw, 'items', 'update', cleared('PATCH')));
    await runUpdate(ctx, updateAction(updated, live.id, patch), patch);
    await runCreate(ctx, createAction(aligned, { verifyFirst: true }));
    await archiveOne(ctx, archiveAction('item', archived, toArchive.id, { via: 'single' }));
    expect(await stories('item', updated.externalId, aligned.externalId, archived)).toEqual([[], ['adopted'], []]);
    expect(ctx.outcomes.map((o) => o.outcome)).toEqual(['skipped', 'skipped', 'skipped']);
  });

  it('tell nothing of a bulk write: a top-up bulk-update, an account bulk-remove', async () => {
    const t = desiredTopUp(ext('t'), { price: 433 });
    useClient(overrideMethod(raw, 'topUps', 'bulk', cleared('POST')));
    await bulkUpdate(ctx, [updateAction(t, 78, { via: 'bulk-update', batch: 0, ifRefused: 'patch' })]);
    expect(await stories('topup', t.externalId)).toEqual([[]]);
    const a = ext('a');
    useClient(overrideMethod(raw, 'accounts', 'bulkRemove', cleared('POST')));
    await bulkArchive(ctx, [archiveAction('account', a, 79, { via: 'bulk-remove', batch: 0, ifRefused: 'single' })]);
    expect(await stories('account', a)).toEqual([[]]);
    expect(ctx.outcomes.map((o) => o.outcome)).toEqual(['skipped']);
  });
});

describe('credentials a marketplace quotes back', () => {
  const withSecret = (password: string) => ({
    ...desiredAccount(ext('a'), { price: 1500 }),
    credentials: { login: 'quoted-login', password },
    credentialsHmac: 'hm',
  });

  it('never reach the story or the report of a refused create, update or aligning patch', async () => {
    sandbox.setFaults({ echoCredentials: true });
    const created = withSecret('pw-quoted-create');
    await runCreate(ctx, createAction(created));

    const updated = withSecret('pw-quoted-update');
    const live = await raw.accounts.create(accountBody(updated.externalId));
    await runUpdate(ctx, updateAction(updated, live.id, patch, { sendCredentials: true }), patch);

    const aligned = withSecret('pw-quoted-align');
    await raw.accounts.create(accountBody(aligned.externalId));
    await runCreate(ctx, createAction(aligned, { verifyFirst: true }));

    expect(ctx.outcomes.map((o) => o.outcome)).toEqual(['failed', 'failed', 'failed']);
    for (const d of [created, updated, aligned]) {
      const events = await story('account', d.externalId);
      const refused = events.find((e) => e.answer?.outcome === 'refused');
      expect(refused?.answer?.status).toBe(422);
      expect(refused?.answer?.message).toEqual(expect.any(String));
      const out = ctx.outcomes.find((o) => o.externalId === d.externalId);
      for (const text of [JSON.stringify(events), out?.message]) {
        expect(text).not.toContain(d.credentials.password);
        expect(text).not.toContain('quoted-login');
      }
    }
  });
});

describe('adoptions aligned by re-create', () => {
  it('tell the re-create as the route of the aligning write', async () => {
    const d = desiredAccount(ext('a'), { price: 1999 });
    await raw.accounts.create(accountBody(d.externalId));
    useClient(overrideMethod(raw, 'accounts', 'create', lost('POST')));
    const alignRoute = { via: 'recreate', ifRefused: 'report' } as const;
    await runCreate(ctx, createAction(d, { verifyFirst: true, alignRoute }));
    const updated = (await story('account', d.externalId)).filter((e) => e.type === 'updated');
    expect(updated).toEqual([
      expect.objectContaining({
        route: 'DELETE /api/v1/accounts/:id, then POST /api/v1/accounts',
        detail: 'found under its external_id: aligned with the catalogue',
        answer: expect.objectContaining({ outcome: 'unknown', status: 503 }),
      }),
    ]);
  });
});
