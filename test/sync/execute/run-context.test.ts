// The RunContext of one executor run, on a real sqlite state db: each write journaled before it is sent and
// settled after (an unknown outcome left "sent" for the next start), nothing begun once stopped, outcomes and
// progress counted, what was applied recorded as last applied, sales noted once, refused capabilities probed
// again after their age.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log/logger.ts';
import type { MarketplaceClient, RemoteOffer } from '../../../src/marketplace/marketplace-client.ts';
import type { JournalState } from '../../../src/state/records.ts';
import { openStateStore } from '../../../src/state/open-state-store.ts';
import type { KyselyStateStore } from '../../../src/state/kysely-state-store.ts';
import { CAPABILITIES } from '../../../src/capabilities/names.ts';
import { RunStoppedError } from '../../../src/sync/run-stopped.ts';
import { OfferBackoffs } from '../../../src/sync/plan/offer-backoff.ts';
import { seen } from '../../../src/sync/execute/offer-events.ts';
import { EVENT_BATCH, RunContext, type RunContextDeps } from '../../../src/sync/execute/run-context.ts';
import { captureLog } from '../../support/log-capture.ts';
import { desiredAccount, desiredItem, imageRef, remoteOffer } from '../../support/offers.ts';

const T0 = Date.parse('2027-03-01T12:00:00.000Z');
const HOUR = 3_600_000;
let store: KyselyStateStore;
let now: number;
let states: { id: number; state: JournalState; error: string | null | undefined }[];

beforeEach(async () => {
  now = T0;
  store = await openStateStore(':memory:', { now: () => now });
  states = [];
  const set = store.journalSet.bind(store);
  // Observed, not replaced: the real store still records every state.
  store.journalSet = async (id, state, error) => {
    states.push({ id, state, error });
    await set(id, state, error);
  };
});
afterEach(() => store.close());

const client = {} as MarketplaceClient;
const ctxOf = (over: Partial<RunContextDeps> = {}) =>
  new RunContext({ client, store, logger: silentLogger, runId: 'run-1', createAttempts: 3, ...over });

const item = desiredItem(
  'it-1',
  {},
  {
    hash: 'hash-it-1',
    source: { file: 'items/a.json' },
    fields: { title: 'One', price: 100, stock: 5, status: 'listed' },
  },
);
const account = desiredAccount(
  'acc-1',
  {},
  {
    hash: 'hash-acc-1',
    fields: { title: 'Acc', price: 900, current_rank: 'gold' },
    credentialsHmac: 'hmac-1',
    images: [imageRef('a', { path: 'a.png', absPath: '/a.png' }), imageRef('b', { path: 'b.png', absPath: '/b.png' })],
  },
);
/** it-1 as remote offer 41, with no status unless told. */
const remote = (over: Partial<RemoteOffer> = {}): RemoteOffer =>
  remoteOffer('it-1', 41, { status: undefined, ...over });

describe('journaled', () => {
  it('journals the write as sent before the request (one statement) and done after it', async () => {
    const ctx = ctxOf();
    const out = await ctx.journaled('update', 'item', ['it-1', 'it-2'], async (entry) => {
      expect(entry).toMatchObject({ runId: 'run-1', op: 'update', kind: 'item', keys: ['it-1', 'it-2'] });
      expect((await store.journalUnfinished()).map((e) => e.state)).toEqual(['sent']);
      return 'answer';
    });
    expect(out).toBe('answer');
    // The row goes in as sent: no second statement before the request.
    expect(states.map((s) => s.state)).toEqual(['done']);
    expect(await store.journalUnfinished()).toEqual([]);
  });

  it('journals a refused write as failed, with the message scrubbed of secrets', async () => {
    const ctx = ctxOf();
    const err = Object.assign(new Error('422 bad price'), { status: 422, outcomeUnknown: false });
    await expect(ctx.journaled('create', 'item', ['it-1'], () => Promise.reject(err))).rejects.toBe(err);
    expect(states.map((s) => [s.state, s.error])).toEqual([['failed', '422 bad price']]);
    expect(await store.journalUnfinished()).toEqual([]);
  });

  it('leaves a write whose outcome is unknown as sent, for the next start to settle', async () => {
    const ctx = ctxOf();
    const err = Object.assign(new Error('socket hang up'), { outcomeUnknown: true });
    await expect(ctx.journaled('create', 'item', ['it-1'], () => Promise.reject(err))).rejects.toBe(err);
    expect(states).toEqual([]);
    expect((await store.journalUnfinished()).map((e) => [e.op, e.keys, e.state])).toEqual([
      ['create', ['it-1'], 'sent'],
    ]);
  });

  it('begins nothing once the run is stopped', async () => {
    const stop = new AbortController();
    const ctx = ctxOf({ signal: stop.signal });
    await ctx.journaled('archive', 'item', ['it-1'], async () => undefined);
    stop.abort(new Error('SIGTERM'));
    let sent = false;
    const refused = ctx.journaled('archive', 'item', ['it-2'], async () => {
      sent = true;
    });
    await expect(refused).rejects.toBeInstanceOf(RunStoppedError);
    await expect(refused).rejects.toMatchObject({ message: 'not begun: SIGTERM' });
    expect(sent).toBe(false);
    expect(states.map((s) => s.state)).toEqual(['done']);
    expect((await store.journalUnfinished()).length).toBe(0);
  });
});

describe('report', () => {
  it('keeps every outcome, counts progress for those that count, and logs a failure', () => {
    const { logger, lines } = captureLog('warn');
    const progress: [number, number][] = [];
    const ctx = ctxOf({ logger, onProgress: (d, t) => progress.push([d, t]) });
    ctx.total = 3;
    ctx.report({ kind: 'item', externalId: 'it-1', outcome: 'updated' });
    ctx.report({ kind: 'image', externalId: 'sha', outcome: 'uploaded' }, false);
    ctx.report({ kind: 'item', externalId: 'it-2', outcome: 'failed', file: 'items/a.json', message: '422 no' });
    expect(ctx.outcomes.map((o) => o.externalId)).toEqual(['it-1', 'sha', 'it-2']);
    expect(progress).toEqual([
      [1, 3],
      [2, 3],
    ]);
    expect(lines).toMatchObject([
      { level: 40, msg: 'offer failed', kind: 'item', externalId: 'it-2', file: 'items/a.json', err: '422 no' },
    ]);
  });

  it('needs no progress listener', () => {
    const ctx = ctxOf();
    ctx.report({ kind: 'item', externalId: 'it-1', outcome: 'updated' });
    expect(ctx.outcomes).toHaveLength(1);
  });
});

describe('applied', () => {
  it('records what was sent as last applied, with the offer as planned', async () => {
    const ctx = ctxOf();
    await ctx.applied(
      account,
      remote({ id: 41, externalId: 'acc-1', status: 'active', updatedAt: T0 - 5, fields: { current_rank: 17 } }),
      account.fields,
      account.fields,
    );
    expect(await store.getOffer('account', 'acc-1')).toMatchObject({
      remoteId: 41,
      lastApplied: { title: 'Acc', price: 900, current_rank: 'gold' },
      credentialsHmac: 'hmac-1',
      imageHashes: ['sha-a', 'sha-b'],
      contentHash: 'hash-acc-1',
      remoteStatus: 'active',
      remoteUpdatedAt: T0 - 5,
      managed: true,
      sourceFile: 'accounts/a.json',
      lossyFields: ['current_rank'],
    });
  });

  it('keeps of a field not sent the value last applied to the same offer, else the desired one', async () => {
    const ctx = ctxOf();
    await store.upsertOffer('item', 'it-1', {
      remoteId: 41,
      lastApplied: { title: 'Old', price: 90, stock: 4 },
      lossyFields: ['stock'],
      credentialsHmac: 'stale',
      imageHashes: ['x'],
    });
    await ctx.applied(item, remote({ status: 'listed' }), { price: 100 }, item.fields);
    expect(await store.getOffer('item', 'it-1')).toMatchObject({
      lastApplied: { title: 'Old', price: 100, stock: 4, status: 'listed' },
      lossyFields: ['stock'],
      credentialsHmac: null,
      imageHashes: [],
    });
  });

  it('does not carry last applied or lossy fields over from another remote offer', async () => {
    const ctx = ctxOf();
    await store.upsertOffer('item', 'it-1', {
      remoteId: 40,
      lastApplied: { title: 'Old', price: 90 },
      lossyFields: ['stock'],
    });
    await ctx.applied(item, remote({ id: 41 }), { price: 100 }, item.fields);
    expect(await store.getOffer('item', 'it-1')).toMatchObject({
      remoteId: 41,
      lastApplied: { title: 'One', price: 100, stock: 5, status: 'listed' },
      lossyFields: [],
    });
  });

  it('takes the status sent when the answer echoes none, and null when neither says', async () => {
    const ctx = ctxOf();
    await ctx.applied(item, remote(), { status: 'paused' }, item.fields);
    expect(await store.getOffer('item', 'it-1')).toMatchObject({ remoteStatus: 'paused', remoteUpdatedAt: null });
    await ctx.applied({ ...item, externalId: 'it-2' }, remote({ id: 42 }), { price: 1 }, { price: 1 });
    expect(await store.getOffer('item', 'it-2')).toMatchObject({ remoteStatus: null });
  });

  it('records an account with no credentials as having none', async () => {
    const ctx = ctxOf();
    const { credentialsHmac: _h, ...bare } = account;
    await ctx.applied(bare, remote({ externalId: 'acc-1' }), {}, account.fields);
    expect((await store.getOffer('account', 'acc-1'))?.credentialsHmac).toBeNull();
  });

  it('forgets the backoff of an offer the marketplace took, and notes a refusal', async () => {
    const backoffs = await OfferBackoffs.load(store, { initialMs: 60_000, maxMs: HOUR, parkAfter: 5 }, () => now);
    const ctx = ctxOf({ backoffs });
    const refused = Object.assign(new Error('422 bad'), { status: 422 });
    expect(ctx.refused(item, refused)).toBe(
      '; not sent again before 2027-03-01T12:01:00.000Z unless its catalogue entry changes',
    );
    expect(backoffs.all().has('item:it-1')).toBe(true);
    await ctx.applied(item, remote(), item.fields, item.fields);
    expect(backoffs.all().size).toBe(0);
    expect(ctxOf().refused(item, refused)).toBe('');
  });
});

describe('markLocked', () => {
  it('notes a sale once, with its time, title and price, and records the status', async () => {
    const ctx = ctxOf({ now: () => now });
    await store.upsertOffer('item', 'it-1', { remoteId: 41, remoteStatus: 'listed' });
    now = T0 + HOUR;
    await ctx.markLocked(
      'item',
      'it-1',
      remote({ status: 'sold', soldAt: T0, fields: { title: 'Gold', price: 2499 } }),
    );
    expect(ctx.sold).toEqual([
      {
        kind: 'item',
        external_id: 'it-1',
        id: 41,
        status: 'sold',
        sale_key: 'item:41:sold:2027-03-01T12:00:00.000Z',
        title: 'Gold',
        price: 2499,
        currency: null,
        sold_at: '2027-03-01T12:00:00.000Z',
        sold_at_source: 'marketplace',
        seen_at: '2027-03-01T13:00:00.000Z',
      },
    ]);
    expect(await store.getOffer('item', 'it-1')).toMatchObject({ remoteId: 41, remoteStatus: 'sold' });
    await ctx.markLocked('item', 'it-1', remote({ status: 'sold', soldAt: T0 }));
    expect(ctx.sold).toHaveLength(1);
  });

  it('notes a sale of an offer it never saw, at the time it saw it when the answer gives none', async () => {
    const ctx = ctxOf({ now: () => now });
    await ctx.markLocked('item', 'it-9', remote({ id: 49, status: 'refunded', soldAt: null }));
    expect(ctx.sold).toMatchObject([
      {
        external_id: 'it-9',
        id: 49,
        status: 'refunded',
        title: null,
        price: null,
        sold_at: '2027-03-01T12:00:00.000Z',
        sold_at_source: 'seen',
      },
    ]);
  });

  it('takes the title and price offersync last sent when the answer carries none', async () => {
    const ctx = ctxOf({ now: () => now });
    await store.upsertOffer('account', 'a-1', {
      remoteId: 7,
      remoteStatus: 'listed',
      lastApplied: { title: 'Diamond account', price: 4990 },
    });
    await ctx.markLocked('account', 'a-1', remote({ id: 7, externalId: 'a-1', status: 'sold' }));
    expect(ctx.sold).toMatchObject([{ title: 'Diamond account', price: 4990, sale_key: 'account:7:sold' }]);
  });

  it('notes nothing when the answer has no status', async () => {
    const ctx = ctxOf();
    await store.upsertOffer('item', 'it-1', { remoteId: 41, remoteStatus: 'listed' });
    await ctx.markLocked('item', 'it-1', remote());
    expect(ctx.sold).toEqual([]);
    expect((await store.getOffer('item', 'it-1'))?.remoteStatus).toBeNull();
  });
});

describe('images and capabilities', () => {
  it('reads an uploaded image id from the state db', async () => {
    const ctx = ctxOf();
    await store.putImage({ sha256: 'sha-a', remoteId: 501, url: null, uploadedAt: T0 });
    expect(await ctx.imageId('sha-a')).toBe(501);
    expect(await ctx.imageId('sha-b')).toBeUndefined();
  });

  it('probes a refused route again once its refusal is older than reprobeAfterMs, by the given clock', async () => {
    await store.setCapability(CAPABILITIES.accountUpdate, false, 'not served');
    const probe = (ctx: RunContext) =>
      ctx.capabilities.call({
        capability: CAPABILITIES.accountUpdate,
        attempt: async () => 'sent by the route',
        refusal: async () => null,
        fallback: async () => 'fallback',
        proberFallsBack: true,
      });
    expect(await probe(ctxOf())).toBe('fallback');
    expect(await probe(ctxOf({ reprobeAfterMs: HOUR, now: () => T0 + HOUR - 1 }))).toBe('fallback');
    expect(await probe(ctxOf({ reprobeAfterMs: HOUR, now: () => T0 + HOUR }))).toBe('sent by the route');
    expect((await store.getCapability(CAPABILITIES.accountUpdate))?.usable).toBe(true);
  });
});

describe('the offers story', () => {
  /** The batches of events written outside a transaction, by size. */
  function observedWrites(): number[] {
    const sizes: number[] = [];
    const record = store.recordOfferEvents.bind(store);
    store.recordOfferEvents = async (events) => {
      sizes.push(events.length);
      await record(events);
    };
    return sizes;
  }
  const told = (ctx: RunContext, n: number, from = 0) => {
    for (let i = from; i < from + n; i++) ctx.event(seen('item', `it-${i}`, 'adopted', `event ${i}`));
  };

  it('keeps events in memory until a batch is full, writes it whole, and the rest when flushed', async () => {
    const sizes = observedWrites();
    const ctx = ctxOf({ now: () => now });
    await ctx.flushEvents();
    expect(sizes).toEqual([]);
    told(ctx, EVENT_BATCH - 1);
    expect(sizes).toEqual([]);
    told(ctx, 2, EVENT_BATCH - 1);
    await ctx.flushEvents();
    expect(sizes).toEqual([EVENT_BATCH, 1]);
    expect(await store.offerHistory('item', `it-${EVENT_BATCH}`, 10)).toEqual([
      expect.objectContaining({ runId: 'run-1', at: T0, type: 'adopted', detail: `event ${EVENT_BATCH}` }),
    ]);
  });

  it('writes the events told inside a transaction with it, however many', async () => {
    const sizes = observedWrites();
    const ctx = ctxOf();
    await ctx.inTransaction(async () => told(ctx, EVENT_BATCH + 10));
    expect(sizes).toEqual([]);
    expect(await store.offerHistory('item', 'it-0', 10)).toHaveLength(1);
    expect(await store.offerHistory('item', `it-${EVENT_BATCH + 9}`, 10)).toHaveLength(1);
  });

  it('a story that cannot be written is logged, and does not fail the run', async () => {
    store.recordOfferEvents = async () => {
      throw new Error('disk I/O error');
    };
    const log = captureLog('warn');
    const ctx = ctxOf({ logger: log.logger });
    told(ctx, 3);
    await ctx.flushEvents();
    expect(log.find('offer history: events not recorded')).toEqual([
      expect.objectContaining({ events: 3, err: 'disk I/O error' }),
    ]);
  });

  it('tells an offer the marketplace marks sold as sold, and one it marks otherwise as marked', async () => {
    const ctx = ctxOf({ now: () => now });
    await ctx.markLocked('item', 'it-1', remote({ status: 'sold' }));
    await ctx.markLocked('item', 'it-2', remote({ id: 42, externalId: 'it-2', status: 'refunded' }));
    await ctx.flushEvents();
    const events = async (e: string) =>
      (await store.offerHistory('item', e, 10)).map((x) => [x.type, x.detail, x.route, x.answer]);
    expect(await events('it-1')).toEqual([['sold', 'the marketplace marks it sold', null, null]]);
    expect(await events('it-2')).toEqual([['marked', 'the marketplace marks it refunded', null, null]]);
  });
});

describe('applied: the count of units sold', () => {
  it('takes the count of a newly mapped item as sold so far and as the stock baseline, 0 when unknown', async () => {
    const ctx = ctxOf();
    await ctx.applied(item, remote({ soldCount: 3 }), item.fields, item.fields);
    expect(await store.getOffer('item', 'it-1')).toMatchObject({ soldCount: 3, soldCountAtSend: 3 });
    await ctx.applied({ ...item, externalId: 'it-2' }, remote({ id: 42 }), item.fields, item.fields);
    expect(await store.getOffer('item', 'it-2')).toMatchObject({ soldCount: 0, soldCountAtSend: 0 });
  });

  it('moves the stock baseline of a mapped item only when the stock is sent, to the count known', async () => {
    const ctx = ctxOf();
    await store.upsertOffer('item', 'it-1', { remoteId: 41, soldCount: 4, soldCountAtSend: 2 });
    await ctx.applied(item, remote(), { price: 100 }, item.fields);
    expect(await store.getOffer('item', 'it-1')).toMatchObject({ soldCount: 4, soldCountAtSend: 2 });
    await ctx.applied(item, remote(), { stock: 5 }, item.fields);
    expect(await store.getOffer('item', 'it-1')).toMatchObject({ soldCount: 4, soldCountAtSend: 4 });
    await ctx.applied(item, remote({ soldCount: 6 }), { stock: 5 }, item.fields);
    expect(await store.getOffer('item', 'it-1')).toMatchObject({ soldCount: 4, soldCountAtSend: 6 });
  });

  it('keeps no count for an account, which sells whole', async () => {
    const ctx = ctxOf();
    await ctx.applied(account, remote({ externalId: 'acc-1', soldCount: 1 }), account.fields, account.fields);
    expect(await store.getOffer('account', 'acc-1')).toMatchObject({ soldCount: null, soldCountAtSend: null });
  });
});
