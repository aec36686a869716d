// The single-offer archive routes of items and top-ups, route by route against the sandbox: PATCH status=archived
// first, DELETE where that is refused, the last resort once both are, and which 404s and 422s condemn a route
// rather than fail the offer. The whole runs over them are in archive-routes.run.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../../src/capabilities/names.ts';
import {
  BadResponseError,
  NotFoundError,
  ServerError,
  ValidationError,
} from '../../../src/marketplace/marketplace-errors.ts';
import type { MarketplaceClient } from '../../../src/marketplace/marketplace-client.ts';
import { archiveOne } from '../../../src/sync/execute/route-archive.ts';
import { RunContext } from '../../../src/sync/execute/run-context.ts';
import { ext } from '../../marketplace/support/contract.ts';
import { overrideMethod } from '../../support/client-override.ts';
import { captureLog, type CapturedLog } from '../../support/log-capture.ts';
import { accountBody, itemBody, topUpBody } from '../../support/offers.ts';
import { archiveAction } from '../../support/plan-actions.ts';
import { type RecordingClient, recordingClient } from '../../support/recording-client.ts';
import { useSandboxRun } from '../support/sandbox-run.ts';

const { sandbox, raw, store } = useSandboxRun();
let rec: RecordingClient;
let ctx: RunContext;
let log: CapturedLog;

beforeEach(() => {
  useClient(raw);
});
afterEach(() => {
  sandbox.setRepresentation({});
});

function useClient(client: MarketplaceClient): void {
  rec = recordingClient(client);
  log = captureLog('warn');
  ctx = new RunContext({ client: rec.client, store, logger: log.logger, runId: 'run-1', createAttempts: 1 });
}

const outcomes = () => ctx.outcomes.map((o) => `${o.outcome}:${o.externalId}`);
const listedItem = async () => {
  const e = ext('i');
  const live = await raw.items.create(itemBody(e));
  await store.upsertOffer('item', e, { remoteId: live.id, remoteStatus: 'listed', managed: true });
  return archiveAction('item', e, live.id);
};
/** The archive events of an offer's story: route and the marketplace's answer. */
async function archiveEvents(kind: 'item' | 'topup' | 'account', externalId: string) {
  await ctx.flushEvents();
  const events = await store.offerHistory(kind, externalId, 100);
  return events
    .filter((e) => e.type === 'archived')
    .map((e) => ({ route: e.route, outcome: e.answer?.outcome, detail: e.detail }));
}
const deleteNotFound = (path: string, what?: string) =>
  new NotFoundError({ method: 'DELETE', path, status: 404 }, what);

describe('item and top-up archives one by one', () => {
  it('PATCH status=archived refused, DELETE served: probed once each, the next offer by DELETE at once', async () => {
    sandbox.setRepresentation({ statusArchivedRefused: true, deleteArchives: true });
    const [a, b] = [await listedItem(), await listedItem()];
    await archiveOne(ctx, a);
    expect(rec.calls).toEqual(['items.update', 'items.archive']);
    expect(await store.getCapability(CAPABILITIES.itemArchiveByPatch)).toMatchObject({
      usable: false,
      detail: expect.stringMatching(/^422: .*status is invalid/),
    });
    expect(await store.getCapability(CAPABILITIES.itemDelete)).toMatchObject({ usable: true });
    expect(log.find('PATCH /items/{id} status=archived refused: archives of this kind fall back')).toEqual([
      expect.objectContaining({ status: 422, route: 'PATCH /items/{id} status=archived', kind: 'item' }),
    ]);
    expect(await archiveEvents('item', a.externalId)).toEqual([
      { route: 'PATCH /api/v1/items/:id', outcome: 'refused', detail: 'removed from the catalogue' },
      { route: 'DELETE /api/v1/items/:id', outcome: 'ok', detail: 'removed from the catalogue' },
    ]);
    await archiveOne(ctx, b);
    expect(rec.calls.slice(2)).toEqual(['items.archive']);
    expect(outcomes()).toEqual([`archived:${a.externalId}`, `archived:${b.externalId}`]);
    expect((await raw.items.get({ id: b.remoteId })).status).toBe('archived');
    expect((await store.getOffer('item', b.externalId))?.remoteStatus).toBe('archived');
  });

  it('top-ups take their own routes: PATCH /top-ups/{id}, then DELETE /top-ups/{id}', async () => {
    sandbox.setRepresentation({ statusArchivedRefused: true, deleteArchives: true });
    const e = ext('t');
    const live = await raw.topUps.create(topUpBody(e));
    await archiveOne(ctx, archiveAction('topup', e, live.id));
    expect(rec.calls).toEqual(['topUps.update', 'topUps.archive']);
    expect(await store.getCapability(CAPABILITIES.topUpArchiveByPatch)).toMatchObject({ usable: false });
    expect(await store.getCapability(CAPABILITIES.topUpDelete)).toMatchObject({ usable: true });
    expect(await store.getCapability(CAPABILITIES.itemArchiveByPatch)).toBeUndefined();
    expect(outcomes()).toEqual([`archived:${e}`]);
  });

  it('both refused: the offer failed once, naming the other route; the next sends the documented PATCH', async () => {
    sandbox.setRepresentation({ statusArchivedRefused: true });
    const [a, b] = [await listedItem(), await listedItem()];
    await archiveOne(ctx, a);
    // The prober's own PATCH was refused with the route: not sent twice.
    expect(rec.calls).toEqual(['items.update', 'items.archive']);
    expect(ctx.outcomes).toEqual([
      expect.objectContaining({
        outcome: 'failed',
        message: expect.stringMatching(
          new RegExp(
            '^archive failed: .*status is invalid.*; DELETE /items/\\{id\\} not served either: ' +
              "archive it on the marketplace's website$",
          ),
        ),
      }),
    ]);
    expect(await store.getCapability(CAPABILITIES.itemDelete)).toMatchObject({
      usable: false,
      detail: expect.stringMatching(/^405: /),
    });
    await archiveOne(ctx, b);
    expect(rec.calls.slice(2)).toEqual(['items.update']);
    expect(ctx.outcomes[1]).toMatchObject({
      outcome: 'failed',
      message: expect.stringMatching(/^archive failed: .*DELETE \/items\/\{id\} not served either/),
    });
    // Taken again by the marketplace: the documented PATCH archives it and is marked served.
    sandbox.setRepresentation({});
    await archiveOne(ctx, b);
    expect(ctx.outcomes[2]).toMatchObject({ outcome: 'archived', externalId: b.externalId });
    expect(await store.getCapability(CAPABILITIES.itemArchiveByPatch)).toMatchObject({ usable: true });
  });

  it('a 404 to DELETE for an offer its GET finds: the route refused, archived by the last resort', async () => {
    await store.setCapability(CAPABILITIES.itemArchiveByPatch, false, '422: refused');
    const a = await listedItem();
    useClient(
      overrideMethod(raw, 'items', 'archive', async () => {
        throw deleteNotFound(`/api/v1/items/${a.remoteId}`, 'The route was not found.');
      }),
    );
    await archiveOne(ctx, a);
    expect(rec.calls).toEqual(['items.archive', 'items.get', 'items.update']);
    expect(await store.getCapability(CAPABILITIES.itemDelete)).toMatchObject({ usable: false });
    expect(outcomes()).toEqual([`archived:${a.externalId}`]);
    expect(await store.getCapability(CAPABILITIES.itemArchiveByPatch)).toMatchObject({ usable: true });
  });

  it('a 404 to DELETE for an offer its GET does not find: forgotten and skipped, the route not judged', async () => {
    await store.setCapability(CAPABILITIES.itemArchiveByPatch, false, '422: refused');
    const e = ext('i');
    await store.upsertOffer('item', e, { remoteId: 987_654_310, managed: true });
    sandbox.setRepresentation({ deleteArchives: true });
    await archiveOne(ctx, archiveAction('item', e, 987_654_310));
    expect(rec.calls).toEqual(['items.archive', 'items.get']);
    expect(outcomes()).toEqual([`skipped:${e}`]);
    expect(await store.getOffer('item', e)).toBeUndefined();
    expect(await store.getCapability(CAPABILITIES.itemDelete)).toBeUndefined();
  });

  it("a proxy's 404 page to DELETE for an offer its GET does not find: forgotten and skipped as well", async () => {
    await store.setCapability(CAPABILITIES.itemArchiveByPatch, false, '422: refused');
    const e = ext('i');
    await store.upsertOffer('item', e, { remoteId: 987_654_311, managed: true });
    const path = '/api/v1/items/987654311';
    useClient(
      overrideMethod(raw, 'items', 'archive', async () => {
        throw new BadResponseError(
          { method: 'DELETE', path, status: 404 },
          "not found, but the answer is not the API's",
        );
      }),
    );
    await archiveOne(ctx, archiveAction('item', e, 987_654_311));
    expect(rec.calls).toEqual(['items.archive', 'items.get']);
    expect(outcomes()).toEqual([`skipped:${e}`]);
    expect(await store.getOffer('item', e)).toBeUndefined();
    expect(await store.getCapability(CAPABILITIES.itemDelete)).toBeUndefined();
  });

  it('a GET that fails while telling a 404 apart: the archive fails with it, the route not judged', async () => {
    await store.setCapability(CAPABILITIES.itemArchiveByPatch, false, '422: refused');
    const a = await listedItem();
    let client = overrideMethod(raw, 'items', 'archive', async () => {
      throw deleteNotFound(`/api/v1/items/${a.remoteId}`);
    });
    client = overrideMethod(client, 'items', 'get', async () => {
      throw new ServerError({ method: 'GET', path: `/api/v1/items/${a.remoteId}`, status: 503 });
    });
    useClient(client);
    await archiveOne(ctx, a);
    expect(ctx.outcomes).toEqual([
      expect.objectContaining({ outcome: 'failed', message: expect.stringMatching(/^archive failed: GET .* 503/) }),
    ]);
    expect(await store.getCapability(CAPABILITIES.itemDelete)).toBeUndefined();
  });

  it('a 422 to DELETE is the offer refused, not the route: failed, the route not judged', async () => {
    await store.setCapability(CAPABILITIES.itemArchiveByPatch, false, '422: refused');
    const a = await listedItem();
    useClient(
      overrideMethod(raw, 'items', 'archive', async () => {
        throw new ValidationError({ method: 'DELETE', path: '/api/v1/items/1', status: 422, serverMessage: 'locked' });
      }),
    );
    await archiveOne(ctx, a);
    expect(rec.calls).toEqual(['items.archive']);
    expect(ctx.outcomes).toEqual([
      expect.objectContaining({ outcome: 'failed', message: expect.stringMatching(/^archive failed: .*locked/) }),
    ]);
    expect(await store.getCapability(CAPABILITIES.itemDelete)).toBeUndefined();
    expect(await archiveEvents('item', a.externalId)).toEqual([
      { route: 'DELETE /api/v1/items/:id', outcome: 'refused', detail: 'removed from the catalogue' },
    ]);
  });
});

describe('account archives', () => {
  it('by DELETE; a definite 404 forgets the account, any other failure is reported with its story', async () => {
    const e = ext('a');
    const live = await raw.accounts.create(accountBody(e));
    await archiveOne(ctx, archiveAction('account', e, live.id));
    expect(rec.calls).toEqual(['accounts.archive']);
    expect(await archiveEvents('account', e)).toEqual([
      { route: 'DELETE /api/v1/accounts/:id', outcome: 'ok', detail: 'removed from the catalogue' },
    ]);

    const gone = ext('a');
    await store.upsertOffer('account', gone, { remoteId: 987_654_311, managed: true });
    await archiveOne(ctx, archiveAction('account', gone, 987_654_311));
    expect(ctx.outcomes[1]).toEqual({
      kind: 'account',
      externalId: gone,
      outcome: 'skipped',
      message: 'already gone from the marketplace',
    });
    expect(await store.getOffer('account', gone)).toBeUndefined();

    const refused = ext('a');
    useClient(
      overrideMethod(raw, 'accounts', 'archive', async () => {
        throw new ValidationError({ method: 'DELETE', path: '/api/v1/accounts/1', status: 422, serverMessage: 'no' });
      }),
    );
    await archiveOne(ctx, archiveAction('account', refused, live.id));
    expect(ctx.outcomes).toEqual([
      expect.objectContaining({ kind: 'account', externalId: refused, outcome: 'failed' }),
    ]);
    expect(ctx.outcomes[0]?.message).toMatch(/^archive failed: DELETE .*422 validation failed: no$/);
    expect(await archiveEvents('account', refused)).toEqual([
      { route: 'DELETE /api/v1/accounts/:id', outcome: 'refused', detail: 'removed from the catalogue' },
    ]);
  });
});
