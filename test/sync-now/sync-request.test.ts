// "Sync now" through the state db's meta table: a reconcile asks, the daemon acknowledges and answers. The daemon
// here is scripted per poll of the asking side (a step before each of its polls), so every test is decided by
// the order of what happens, not by a clock; each is stopped by its signal after a bounded number of polls (the one
// asked with no signal, by its timeouts of 0).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/open-state-store.ts';
import type { KyselyStateStore } from '../../src/state/kysely-state-store.ts';
import {
  acknowledge,
  answer,
  askToSyncNow,
  type AskOptions,
  type MetaStore,
  pendingSyncRequest,
  readSyncRequest,
  SYNC_ACK_KEY,
  SYNC_ANSWER_KEY,
  SYNC_REQUEST_KEY,
  SYNC_REQUEST_MAX_AGE_MS,
} from '../../src/sync-now/sync-request.ts';

let store: KyselyStateStore;
beforeEach(async () => {
  store = await openStateStore(':memory:');
});
afterEach(() => store.close());

/** Polls after which a test's asking side is stopped: far more than any test needs. */
const MAX_POLLS = 200;

interface Scripted {
  readonly meta: MetaStore;
  readonly polls: () => number;
  /** Whether the asking side was stopped by the bound, not by what it saw. */
  readonly stoppedByBound: () => boolean;
  readonly signal: AbortSignal;
}

/**
 * The state db as the asking side sees it, with `step(poll)` run before each of its polls (a poll begins with the
 * read of the answer), where the test plays the daemon and other reconciles.
 */
function scripted(step: (poll: number) => Promise<void> | void): Scripted {
  const stop = new AbortController();
  let polls = 0;
  const meta: MetaStore = {
    async getMeta(key) {
      if (key === SYNC_ANSWER_KEY) {
        polls++;
        await step(polls);
        if (polls >= MAX_POLLS) stop.abort();
      }
      return store.getMeta(key);
    },
    setMeta: (key, value) => store.setMeta(key, value),
  };
  return { meta, polls: () => polls, stoppedByBound: () => polls >= MAX_POLLS, signal: stop.signal };
}

const opts = (s: Scripted, over: Partial<AskOptions> = {}): AskOptions => ({
  ackTimeoutMs: 60_000,
  runTimeoutMs: 60_000,
  pollMs: 1,
  signal: s.signal,
  ...over,
});

/** The daemon's side: takes the request it finds up, as daemon/daemon.ts does. */
async function takeUp(): Promise<string> {
  const request = await readSyncRequest(store);
  if (!request) throw new Error('no request to take up');
  await acknowledge(store, request.id);
  return request.id;
}

describe('askToSyncNow', () => {
  it('writes a request, and returns the answer the daemon gives it once it has taken it up', async () => {
    let taken = '';
    const s = scripted(async (poll) => {
      if (poll === 1) taken = await takeUp();
      if (poll === 3) await answer(store, { id: taken, runId: 'run-9', outcome: 'converged' });
    });
    const out = await askToSyncNow(s.meta, opts(s));
    expect(out).toEqual({ kind: 'answered', answer: { id: taken, runId: 'run-9', outcome: 'converged' } });
    expect(s.polls()).toBe(3);
  });

  it('keeps the request, acknowledgement and answer under the keys every version of offersync reads', async () => {
    // A reconcile and a daemon of different versions share one state db: the keys and shapes are its format.
    const s = scripted(async (poll) => {
      if (poll === 1) {
        const request = JSON.parse((await store.getMeta('sync.request')) ?? '{}') as Record<string, unknown>;
        expect(Object.keys(request).sort()).toEqual(['at', 'id']);
        expect(request.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(new Date(String(request.at)).toISOString()).toBe(request.at);
        await acknowledge(store, String(request.id));
        expect(JSON.parse((await store.getMeta('sync.ack')) ?? '{}')).toEqual({ id: request.id });
        await answer(store, { id: String(request.id), error: 'the marketplace is unreadable' });
      }
    });
    const out = await askToSyncNow(s.meta, opts(s));
    expect(out).toEqual({
      kind: 'answered',
      answer: { id: expect.any(String), error: 'the marketplace is unreadable' },
    });
    expect([SYNC_REQUEST_KEY, SYNC_ACK_KEY, SYNC_ANSWER_KEY]).toEqual(['sync.request', 'sync.ack', 'sync.answer']);
  });

  it('does not take the answer to an earlier request for its own', async () => {
    await answer(store, { id: 'an-earlier-request', runId: 'run-1', outcome: 'converged' });
    await acknowledge(store, 'an-earlier-request');
    const s = scripted(() => {});
    const out = await askToSyncNow(s.meta, opts(s, { ackTimeoutMs: 0 }));
    expect(out).toEqual({ kind: 'unanswered', stage: 'ack' });
    expect(s.stoppedByBound()).toBe(false);
  });

  it('gives up at the ack stage by itself when nothing takes the request up in ackTimeoutMs', async () => {
    const s = scripted(() => {});
    const out = await askToSyncNow(s.meta, opts(s, { ackTimeoutMs: 0 }));
    expect(out).toEqual({ kind: 'unanswered', stage: 'ack' });
    expect(s.stoppedByBound()).toBe(false);
  });

  it('waits past ackTimeoutMs once its request is taken up, for the answer', async () => {
    let taken = '';
    const s = scripted(async (poll) => {
      if (poll === 1) taken = await takeUp();
      // Each poll waits pollMs: by the fifth, the ack deadline of 0 ms is past.
      if (poll === 5) await answer(store, { id: taken, runId: 'run-2', outcome: 'partial' });
    });
    const out = await askToSyncNow(s.meta, opts(s, { ackTimeoutMs: 0 }));
    expect(out).toEqual({ kind: 'answered', answer: { id: taken, runId: 'run-2', outcome: 'partial' } });
  });

  it('waits for the daemon to take the request up in ackTimeoutMs, not only at its first poll', async () => {
    let taken = '';
    const s = scripted(async (poll) => {
      if (poll === 3) taken = await takeUp();
      if (poll === 4) await answer(store, { id: taken, runId: 'run-6', outcome: 'converged' });
    });
    const out = await askToSyncNow(s.meta, opts(s));
    expect(out).toEqual({ kind: 'answered', answer: { id: taken, runId: 'run-6', outcome: 'converged' } });
    expect(s.polls()).toBe(4);
  });

  it('asked with no signal (the signal is optional), it still gives up by itself', async () => {
    const s = scripted(() => {});
    const out = await askToSyncNow(s.meta, { ackTimeoutMs: 0, runTimeoutMs: 0, pollMs: 1 });
    expect(out).toEqual({ kind: 'unanswered', stage: 'ack' });
    expect(s.stoppedByBound()).toBe(false);
  });

  it('gives up at the run stage by itself when the run taken up gives no answer in runTimeoutMs', async () => {
    const s = scripted(async (poll) => {
      if (poll === 1) await takeUp();
    });
    const out = await askToSyncNow(s.meta, opts(s, { runTimeoutMs: 0 }));
    expect(out).toEqual({ kind: 'unanswered', stage: 'run' });
    expect(s.stoppedByBound()).toBe(false);
  });

  it('a later reconcile asking before the daemon took this request up: the answer to it answers both', async () => {
    const s = scripted(async (poll) => {
      // Another reconcile's request overwrites this one before the daemon polls.
      if (poll === 1) await store.setMeta(SYNC_REQUEST_KEY, JSON.stringify({ id: 'later', at: 'x' }));
      // The daemon takes the later one up a poll after this side saw it: this side's wait for it starts anew.
      if (poll === 2) expect(await takeUp()).toBe('later');
      if (poll === 4) await answer(store, { id: 'later', runId: 'run-3', outcome: 'converged' });
    });
    const out = await askToSyncNow(s.meta, opts(s));
    expect(out).toEqual({ kind: 'answered', answer: { id: 'later', runId: 'run-3', outcome: 'converged' } });
  });

  it('a request made after this one was taken up is not waited for: the answer to this one is', async () => {
    let taken = '';
    const s = scripted(async (poll) => {
      if (poll === 1) taken = await takeUp();
      if (poll === 2) await store.setMeta(SYNC_REQUEST_KEY, JSON.stringify({ id: 'later', at: 'x' }));
      if (poll === 3) await answer(store, { id: taken, runId: 'run-4', outcome: 'converged' });
      if (poll === 4) await answer(store, { id: 'later', runId: 'run-5', outcome: 'converged' });
    });
    const out = await askToSyncNow(s.meta, opts(s));
    expect(out).toEqual({ kind: 'answered', answer: { id: taken, runId: 'run-4', outcome: 'converged' } });
  });

  it('stopped by its signal: unanswered at the stage it reached, the request still written', async () => {
    const before = new AbortController();
    before.abort();
    const idle = scripted(() => {});
    expect(await askToSyncNow(idle.meta, { ...opts(idle), signal: before.signal })).toEqual({
      kind: 'unanswered',
      stage: 'ack',
    });
    expect(await readSyncRequest(store)).toEqual({ id: expect.any(String), at: expect.any(String) });

    const stop = new AbortController();
    const s = scripted(async (poll) => {
      if (poll === 1) await takeUp();
      if (poll === 3) stop.abort();
    });
    expect(await askToSyncNow(s.meta, { ...opts(s), signal: stop.signal })).toEqual({
      kind: 'unanswered',
      stage: 'run',
    });
    expect(s.polls()).toBe(3);
  });
});

describe('readSyncRequest', () => {
  it('reads the request written, and nothing from a value that is not one', async () => {
    expect(await readSyncRequest(store)).toBeUndefined();
    for (const bad of ['', 'not json', '{"id":5}', '{"at":"x"}', 'null', '"id"']) {
      await store.setMeta(SYNC_REQUEST_KEY, bad);
      expect(await readSyncRequest(store)).toBeUndefined();
    }
    await store.setMeta(SYNC_REQUEST_KEY, '{"id":"r-1","at":"2026-11-25T00:00:00.000Z"}');
    expect(await readSyncRequest(store)).toEqual({ id: 'r-1', at: '2026-11-25T00:00:00.000Z' });
  });
});

describe('pendingSyncRequest: what a daemon takes up', () => {
  const now = Date.parse('2026-11-28T10:00:00Z');
  const ask = (id: string, at: string) => store.setMeta(SYNC_REQUEST_KEY, JSON.stringify({ id, at }));

  it('a request its asker still waits for, not yet taken up', async () => {
    await ask('r1', '2026-11-28T09:59:58Z');
    expect(await pendingSyncRequest(store, now)).toEqual({ id: 'r1', at: '2026-11-28T09:59:58Z' });
  });

  it('not the request an earlier daemon took up: a restart does not run it again', async () => {
    await ask('r1', '2026-11-28T09:59:58Z');
    await acknowledge(store, 'r1');
    expect(await pendingSyncRequest(store, now)).toBeUndefined();
  });

  it('not an old request whose asker gave up long ago, nor one whose time cannot be read', async () => {
    await ask('r1', new Date(now - SYNC_REQUEST_MAX_AGE_MS - 1).toISOString());
    expect(await pendingSyncRequest(store, now)).toBeUndefined();
    await ask('r2', new Date(now - SYNC_REQUEST_MAX_AGE_MS).toISOString());
    expect((await pendingSyncRequest(store, now))?.id).toBe('r2');
    await ask('r3', 'yesterday');
    expect(await pendingSyncRequest(store, now)).toBeUndefined();
  });

  it('none when none was made', async () => {
    expect(await pendingSyncRequest(store, now)).toBeUndefined();
  });
});
