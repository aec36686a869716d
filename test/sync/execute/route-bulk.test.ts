// The bulk routes the document does not show (item bulk-update, item and top-up bulk-remove), route by route
// against the sandbox: which candidate each batch takes, the body key and batch limit learnt from a 422 and
// reused, a batch split whose later part fails, and per-offer answers that leave some undone. The whole runs
// over them are in plan/bulk-candidates.run.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../../src/capabilities/names.ts';
import { ServerError, ValidationError } from '../../../src/marketplace/marketplace-errors.ts';
import type { BulkUpdateResult, MarketplaceClient } from '../../../src/marketplace/marketplace-client.ts';
import type { ArchiveAction, UpdateAction } from '../../../src/sync/plan/plan-actions.ts';
import { bulkArchive, bulkUpdate } from '../../../src/sync/execute/route-bulk.ts';
import { RunContext } from '../../../src/sync/execute/run-context.ts';
import { ext } from '../../marketplace/support/contract.ts';
import { overrideMethod } from '../../support/client-override.ts';
import { captureLog, type CapturedLog } from '../../support/log-capture.ts';
import { accountBody, itemBody, topUpBody } from '../../support/offers.ts';
import { desiredItem } from '../../support/offers.ts';
import { archiveAction, updateAction } from '../../support/plan-actions.ts';
import { type RecordingClient, recordingClient } from '../../support/recording-client.ts';
import { useSandboxRun } from '../support/sandbox-run.ts';

const { sandbox, raw, store } = useSandboxRun();
let rec: RecordingClient;
let ctx: RunContext;
let log: CapturedLog;
/** Each bulk call as sent: op, key and elements. */
let sent: { op: string; key: string; elements: unknown[] }[];

beforeEach(() => {
  useClient(raw);
});
afterEach(() => {
  sandbox.setBulk({});
  sandbox.setRepresentation({});
});

/** A fresh run context over `client` (recorded, its bulk calls kept in `sent`), sharing the test's state db. */
function useClient(client: MarketplaceClient): void {
  const keeping = (['items', 'topUps'] as const).reduce(
    (c, resource) =>
      overrideMethod(c, resource, 'bulk', (original, ...args) => {
        sent.push({ op: args[0] as string, key: args[1] as string, elements: args[2] as unknown[] });
        return original(...args);
      }),
    client,
  );
  sent = [];
  rec = recordingClient(keeping);
  log = captureLog('info');
  ctx = new RunContext({ client: rec.client, store, logger: log.logger, runId: 'run-1', createAttempts: 1 });
}

const refused = (serverMessage: string) =>
  new ValidationError({ method: 'POST', path: '/api/v1/items/bulk-update', status: 422, serverMessage });
const serverError = () => new ServerError({ method: 'POST', path: '/api/v1/items/bulk-update', status: 503 });
const outcomes = () => ctx.outcomes.map((o) => `${o.outcome}:${o.externalId}`).sort();
const bulkUpdateRoute = { via: 'bulk-update', batch: 0, ifRefused: 'patch' } as const;
const archiveByUpdate = { via: 'bulk-update', batch: 0, ifRefused: 'single' } as const;
const archiveByRemove = { via: 'bulk-remove', batch: 0, ifRefused: 'single' } as const;

/** n listed items, repriced to 500 + i. */
async function repricedItems(n: number): Promise<{ updates: UpdateAction[]; ids: number[] }> {
  const ds = Array.from({ length: n }, (_, i) => desiredItem(ext('i'), { price: 500 + i }));
  const lives = await Promise.all(ds.map((d) => raw.items.create(itemBody(d.externalId))));
  return { updates: ds.map((d, i) => updateAction(d, lives[i]!.id, bulkUpdateRoute)), ids: lives.map((l) => l.id) };
}

async function listedItems(n: number, route: ArchiveAction['route']): Promise<ArchiveAction[]> {
  const es = Array.from({ length: n }, () => ext('i'));
  const lives = await Promise.all(es.map((e) => raw.items.create(itemBody(e))));
  return es.map((e, i) => archiveAction('item', e, lives[i]!.id, route));
}

const prices = (ids: number[]) => Promise.all(ids.map(async (id) => (await raw.items.get({ id })).fields.price));
const statuses = (kind: 'items' | 'topUps', ids: number[]) =>
  Promise.all(ids.map(async (id) => (await raw[kind].get({ id })).status));

describe('item bulk-update', () => {
  it('served: one call carrying each offer by id and the fields sent, never its external_id; remembered', async () => {
    sandbox.setBulk({ undocumented: true });
    const { updates, ids } = await repricedItems(2);
    await bulkUpdate(ctx, updates);
    expect(rec.calls).toEqual(['items.bulk']);
    expect(sent).toEqual([
      {
        op: 'bulk-update',
        key: 'offers',
        elements: updates.map((_, i) => ({ id: ids[i], price: 500 + i })),
      },
    ]);
    expect(outcomes()).toEqual(updates.map((u) => `updated:${u.externalId}`).sort());
    expect(await prices(ids)).toEqual([500, 501]);
    expect(await store.getCapability(CAPABILITIES.itemBulkUpdate)).toMatchObject({ usable: true });
    expect((await store.getOffer('item', updates[1]!.externalId))?.lastApplied).toMatchObject({ price: 501 });
  });

  it('not served: probed once, remembered refused, each item by its own PATCH', async () => {
    const { updates, ids } = await repricedItems(2);
    await bulkUpdate(ctx, updates);
    expect(rec.calls).toEqual(['items.bulk', 'items.update', 'items.update']);
    expect(await store.getCapability(CAPABILITIES.itemBulkUpdate)).toMatchObject({
      usable: false,
      detail: expect.stringMatching(/^404: /),
    });
    expect(log.find('POST /items/bulk-update refused: sent one by one')).toEqual([
      expect.objectContaining({ level: 40, status: 404, route: 'POST /items/bulk-update' }),
    ]);
    expect(await prices(ids)).toEqual([500, 501]);
    expect(outcomes()).toEqual(updates.map((u) => `updated:${u.externalId}`).sort());
  });

  it('another array key, named only in the 422: tried once, used, remembered, and sent at once next time', async () => {
    sandbox.setBulk({ undocumented: true, updateKey: 'items' });
    const first = await repricedItems(2);
    await bulkUpdate(ctx, first.updates);
    expect(sent.map((s) => s.key)).toEqual(['offers', 'items']);
    expect(await prices(first.ids)).toEqual([500, 501]);
    expect(await store.getCapability('POST /items/bulk-update: body key')).toMatchObject({
      usable: true,
      detail: 'items',
    });
    expect(log.lines.map((l) => [l.msg, l.route, l.key])).toEqual([
      ['POST /items/bulk-update asks for its array under "items": trying it', 'POST /items/bulk-update', 'items'],
      ['learnt: POST /items/bulk-update takes its array under "items"', 'POST /items/bulk-update', 'items'],
    ]);
    useClient(raw);
    const next = await repricedItems(1);
    await bulkUpdate(ctx, next.updates);
    expect(sent.map((s) => s.key)).toEqual(['items']);
    // Known already: not learnt again.
    expect(log.lines).toEqual([]);
  });

  it('a 422 naming the key already sent is a refusal like any other: no second try under it', async () => {
    sandbox.setBulk({ undocumented: true });
    const { updates } = await repricedItems(1);
    useClient(
      overrideMethod(raw, 'items', 'bulk', async () => {
        throw refused('The offers array is required.');
      }),
    );
    await bulkUpdate(ctx, updates);
    expect(rec.calls).toEqual(['items.bulk', 'items.update']);
    expect(await store.getCapability(CAPABILITIES.itemBulkUpdate)).toMatchObject({ usable: false });
  });

  it('a batch limit named in the 422: the batch split, the limit remembered and used from the start', async () => {
    sandbox.setBulk({ undocumented: true, limit: 2 });
    const first = await repricedItems(5);
    await bulkUpdate(ctx, first.updates);
    expect(sent.map((s) => s.elements.length)).toEqual([5, 2, 2, 1]);
    expect(await prices(first.ids)).toEqual([500, 501, 502, 503, 504]);
    expect(await store.getCapability('POST /items/bulk-update: batch limit')).toMatchObject({
      usable: true,
      detail: '2',
    });
    expect(log.find('learnt: POST /items/bulk-update takes at most 2 offers a call')).toEqual([
      expect.objectContaining({ route: 'POST /items/bulk-update', limit: 2 }),
    ]);
    useClient(raw);
    const next = await repricedItems(3);
    await bulkUpdate(ctx, next.updates);
    expect(sent.map((s) => s.elements.length)).toEqual([2, 1]);
    expect(outcomes()).toEqual(next.updates.map((u) => `updated:${u.externalId}`).sort());
  });

  it('a limit of 1 remembered is used: one offer a call', async () => {
    sandbox.setBulk({ undocumented: true });
    await store.setCapability('POST /items/bulk-update: batch limit', true, '1');
    const { updates, ids } = await repricedItems(2);
    await bulkUpdate(ctx, updates);
    expect(sent.map((s) => s.elements.length)).toEqual([1, 1]);
    expect(await prices(ids)).toEqual([500, 501]);
  });

  it('a limit remembered that is no whole number of at least 1 is not used', async () => {
    sandbox.setBulk({ undocumented: true });
    for (const bad of ['0', '1.5', 'many']) {
      await store.setCapability('POST /items/bulk-update: batch limit', true, bad);
      useClient(raw);
      const { updates } = await repricedItems(3);
      await bulkUpdate(ctx, updates);
      expect(sent.map((s) => s.elements.length)).toEqual([3]);
    }
  });

  it('a 422 naming a limit no smaller than the batch is the offers refused, not a limit to learn', async () => {
    sandbox.setBulk({ undocumented: true });
    const { updates } = await repricedItems(2);
    useClient(
      overrideMethod(raw, 'items', 'bulk', async () => {
        throw refused('The offers array may contain at most 2 elements.');
      }),
    );
    await bulkUpdate(ctx, updates);
    expect(sent.map((s) => s.elements.length)).toEqual([2]);
    expect(rec.calls).toEqual(['items.bulk', 'items.update', 'items.update']);
    expect(await store.getCapability('POST /items/bulk-update: batch limit')).toBeUndefined();
  });

  it('a later part of a split batch failing after the route proved served: that part goes by PATCH', async () => {
    sandbox.setBulk({ undocumented: true });
    await store.setCapability('POST /items/bulk-update: batch limit', true, '2');
    const { updates, ids } = await repricedItems(5);
    let calls = 0;
    useClient(
      overrideMethod(raw, 'items', 'bulk', async (original, ...args) => {
        if (++calls === 2) throw serverError();
        return original(...args);
      }),
    );
    await bulkUpdate(ctx, updates);
    expect(rec.calls).toEqual(['items.bulk', 'items.bulk', 'items.update', 'items.update', 'items.update']);
    expect(await prices(ids)).toEqual([500, 501, 502, 503, 504]);
    expect(outcomes()).toEqual(updates.map((u) => `updated:${u.externalId}`).sort());
  });

  it('an answer that leaves one offer undone: that one goes by PATCH, its story tells the bulk refusal', async () => {
    sandbox.setBulk({ undocumented: true, failEvery: 2 });
    const { updates, ids } = await repricedItems(2);
    await bulkUpdate(ctx, updates);
    expect(rec.calls).toEqual(['items.bulk', 'items.update']);
    expect(await prices(ids)).toEqual([500, 501]);
    expect(outcomes()).toEqual(updates.map((u) => `updated:${u.externalId}`).sort());
    expect(log.find('bulk-update left it undone: sent singly')).toEqual([
      expect.objectContaining({
        externalId: updates[1]!.externalId,
        route: 'POST /items/bulk-update',
        message: 'The offer could not be processed at this time; retry it.',
      }),
    ]);
    await ctx.flushEvents();
    const story = await store.offerHistory('item', updates[1]!.externalId, 10);
    expect(story.map((e) => [e.route, e.answer])).toEqual([
      [
        'POST /api/v1/items/bulk-update',
        { outcome: 'refused', status: null, message: 'The offer could not be processed at this time; retry it.' },
      ],
      ['PATCH /api/v1/items/:id', { outcome: 'ok', status: null, message: null }],
    ]);
  });
});

describe('item and top-up archives by bulk route', () => {
  it('by bulk-update with status archived when served: one call, archived there and in the state db', async () => {
    sandbox.setBulk({ undocumented: true });
    const archives = await listedItems(2, archiveByUpdate);
    await bulkArchive(ctx, archives);
    expect(sent).toEqual([
      {
        op: 'bulk-update',
        key: 'offers',
        elements: archives.map((a) => ({ id: a.remoteId, status: 'archived' })),
      },
    ]);
    expect(
      await statuses(
        'items',
        archives.map((a) => a.remoteId),
      ),
    ).toEqual(['archived', 'archived']);
    expect(outcomes()).toEqual(archives.map((a) => `archived:${a.externalId}`).sort());
    expect((await store.getOffer('item', archives[0]!.externalId))?.remoteStatus).toBe('archived');
  });

  it('bulk-update refused: the same batch by bulk-remove, the ids alone', async () => {
    sandbox.setBulk({ undocumented: true });
    sandbox.setFaults({ disabled: ['items.bulkUpdate'] });
    const archives = await listedItems(2, archiveByUpdate);
    await bulkArchive(ctx, archives);
    expect(sent).toEqual([
      expect.objectContaining({ op: 'bulk-update' }),
      { op: 'bulk-remove', key: 'ids', elements: archives.map((a) => a.remoteId) },
    ]);
    expect(log.find('POST /items/bulk-update refused: sent by POST /items/bulk-remove')).toHaveLength(1);
    expect(
      await statuses(
        'items',
        archives.map((a) => a.remoteId),
      ),
    ).toEqual(['archived', 'archived']);
    expect(await store.getCapability(CAPABILITIES.itemBulkRemove)).toMatchObject({ usable: true });
    expect(outcomes()).toEqual(archives.map((a) => `archived:${a.externalId}`).sort());
  });

  it('a batch planned for bulk-remove starts there, never by bulk-update', async () => {
    sandbox.setBulk({ undocumented: true });
    const archives = await listedItems(2, archiveByRemove);
    await bulkArchive(ctx, archives);
    expect(sent.map((s) => s.op)).toEqual(['bulk-remove']);
    expect(
      await statuses(
        'items',
        archives.map((a) => a.remoteId),
      ),
    ).toEqual(['archived', 'archived']);
  });

  it('both bulk routes refused: each item by PATCH status=archived', async () => {
    const archives = await listedItems(2, archiveByUpdate);
    await bulkArchive(ctx, archives);
    expect(rec.calls).toEqual(['items.bulk', 'items.bulk', 'items.update', 'items.update']);
    expect(log.find('POST /items/bulk-remove refused: sent one by one')).toHaveLength(1);
    expect(outcomes()).toEqual(archives.map((a) => `archived:${a.externalId}`).sort());
  });

  it('a top-up bulk-remove counted short: read back from the list, the one still listed archived singly', async () => {
    sandbox.setBulk({ undocumented: true });
    sandbox.setFaults({ disabled: ['topUps.bulkUpdate'] });
    const es = [ext('t'), ext('t')];
    const lives = await Promise.all(es.map((e) => raw.topUps.create(topUpBody(e))));
    useClient(
      overrideMethod(raw, 'topUps', 'bulk', async (original, ...args) => {
        if (args[0] !== 'bulk-remove') return original(...args);
        await original(args[0], args[1], [lives[0]!.id], args[3]); // removes the first only
        return { success: true, counts: { removed: 1 } };
      }),
    );
    await bulkArchive(
      ctx,
      es.map((e, i) => archiveAction('topup', e, lives[i]!.id, archiveByUpdate)),
    );
    expect(rec.calls).toEqual(['topUps.bulk', 'topUps.bulk', 'topUps.list', 'topUps.update']);
    expect(
      await statuses(
        'topUps',
        lives.map((l) => l.id),
      ),
    ).toEqual(['archived', 'archived']);
    expect(outcomes()).toEqual(es.map((e) => `archived:${e}`).sort());
  });

  it('items and top-ups of one plan each take their own kind of route', async () => {
    sandbox.setBulk({ undocumented: true });
    const items = await listedItems(1, archiveByUpdate);
    const t = ext('t');
    const live = await raw.topUps.create(topUpBody(t));
    await bulkArchive(ctx, [...items, archiveAction('topup', t, live.id, archiveByUpdate)]);
    expect([...rec.calls].sort()).toEqual(['items.bulk', 'topUps.bulk']);
    expect(await statuses('topUps', [live.id])).toEqual(['archived']);
    expect(await statuses('items', [items[0]!.remoteId])).toEqual(['archived']);
  });

  it('archives planned singly, items or accounts, are left to archiveOne', async () => {
    const archives = [...(await listedItems(1, { via: 'single' })), archiveAction('account', ext('a'), 5)];
    await bulkArchive(ctx, archives);
    expect(rec.calls).toEqual([]);
    expect(ctx.outcomes).toEqual([]);
  });
});

describe('bulk answers read', () => {
  /** The item bulk route answering `answer` whatever it is sent, after sending it. */
  const answering = (answer: (elements: unknown[]) => BulkUpdateResult) =>
    overrideMethod(raw, 'items', 'bulk', async (original, ...args) => {
      await original(...args);
      return answer(args[2] as unknown[]);
    });

  it('an element the answer does not itemise goes singly, untold; one refused without words, "refused"', async () => {
    sandbox.setBulk({ undocumented: true });
    const { updates, ids } = await repricedItems(3);
    const [done, silent, refused] = updates.map((u) => u.externalId);
    useClient(
      answering(() => ({
        body: {},
        outcomes: new Map([
          [done!, { ok: true }],
          [refused!, { ok: false }],
        ]),
      })),
    );
    await bulkUpdate(ctx, updates);
    expect(rec.calls).toEqual(['items.bulk', 'items.update', 'items.update']);
    expect(await prices(ids)).toEqual([500, 501, 502]);
    await ctx.flushEvents();
    const bulkEvents = async (e: string) =>
      (await store.offerHistory('item', e, 10)).filter((h) => h.route === 'POST /api/v1/items/bulk-update');
    expect((await bulkEvents(done!)).map((h) => h.answer?.outcome)).toEqual(['ok']);
    expect(await bulkEvents(silent!)).toEqual([]);
    expect((await bulkEvents(refused!)).map((h) => h.answer)).toEqual([
      { outcome: 'refused', status: null, message: 'refused' },
    ]);
    expect(log.find('bulk-update left it undone: sent singly').map((l) => l.externalId)).toEqual([refused]);
  });

  it('a bulk-remove whose count says all were removed is done, with no read-back', async () => {
    sandbox.setBulk({ undocumented: true });
    sandbox.setRepresentation({ bulkCountsOnly: true });
    const archives = await listedItems(2, archiveByRemove);
    await bulkArchive(ctx, archives);
    expect(rec.calls).toEqual(['items.bulk']);
    expect(outcomes()).toEqual(archives.map((a) => `archived:${a.externalId}`).sort());
  });

  it('a bulk-remove answered with neither outcomes nor counts is read back from the list', async () => {
    sandbox.setBulk({ undocumented: true });
    const archives = await listedItems(1, archiveByRemove);
    useClient(answering(() => ({ body: { success: true } })));
    await bulkArchive(ctx, archives);
    expect(rec.calls).toEqual(['items.bulk', 'items.list']);
    expect(outcomes()).toEqual([`archived:${archives[0]!.externalId}`]);
  });

  it('a failure other than a 422 is not read for a key or a limit, even if its words name one', async () => {
    sandbox.setBulk({ undocumented: true });
    await store.setCapability(CAPABILITIES.itemBulkUpdate, true, null);
    const { updates } = await repricedItems(2);
    useClient(
      overrideMethod(raw, 'items', 'bulk', async () => {
        throw new ServerError({
          method: 'POST',
          path: '/api/v1/items/bulk-update',
          status: 503,
          serverMessage: 'The items array is required; at most 1 element.',
        });
      }),
    );
    await bulkUpdate(ctx, updates);
    expect(sent.map((s) => [s.key, s.elements.length])).toEqual([['offers', 2]]);
    expect(outcomes()).toEqual(updates.map((u) => `failed:${u.externalId}`).sort());
    expect(ctx.outcomes[0]?.message).toMatch(/^bulk-update failed: .*503/);
  });
});

describe('account bulk-remove', () => {
  it('refused: remembered with its status and message, logged, each account by its own DELETE', async () => {
    sandbox.setFaults({ disabled: ['accounts.bulkRemove'] });
    const e = ext('a');
    const live = await raw.accounts.create(accountBody(e));
    await bulkArchive(ctx, [archiveAction('account', e, live.id, archiveByRemove)]);
    expect(rec.calls).toEqual(['accounts.bulkRemove', 'accounts.archive']);
    expect(await store.getCapability(CAPABILITIES.accountBulkRemove)).toMatchObject({
      usable: false,
      detail: expect.stringMatching(/^404: POST /),
    });
    expect(log.find('bulk-remove refused: archiving accounts one by one')).toEqual([
      expect.objectContaining({ status: 404 }),
    ]);
    expect(outcomes()).toEqual([`archived:${e}`]);
  });
});
