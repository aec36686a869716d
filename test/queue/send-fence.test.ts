// The send fence: a write journalled while its sender held the writer lease waits in the queue for a token; once
// the lease is lost it must never leave. Every request passes the fence after its token, before the wire.
import { describe, expect, it } from 'vitest';
import { flush } from '../../src/queue/fake-clock.ts';
import { QueueClearedError } from '../../src/queue/queue-cleared-error.ts';
import type { SendFence } from '../../src/queue/send-fence.ts';
import { create, setup, track } from './request-queue-harness.ts';

class LostLease extends Error {}

/** A lease as the queue sees it: lose() refuses every request from now on and closes the fence. */
function lease() {
  const closed = new AbortController();
  let passes = 0;
  const fence: SendFence = {
    closed: closed.signal,
    async pass() {
      passes++;
      if (closed.signal.aborted) throw new LostLease('lost the writer lease');
    },
  };
  return { fence, lose: () => closed.abort(new LostLease('lost')), passes: () => passes };
}

describe('RequestQueue fence', () => {
  it('requests waiting for a token when the lease is lost are dropped, none sent (64 creates at 1/s)', async () => {
    const { q, clock } = setup({ ratePerSec: 1, burst: 1, concurrency: 8 });
    const l = lease();
    q.fence(l.fence);
    let sent = 0;
    const creates = Array.from({ length: 64 }, (_, i) =>
      track(q.schedule(create(`/accounts#${i}`), async () => sent++)),
    );
    await clock.advance(2_500);
    expect(sent).toBe(3);
    l.lose();
    await clock.runAll();
    await flush();
    expect(sent).toBe(3);
    expect(creates.filter((c) => c.state === 'rejected')).toHaveLength(61);
    expect(creates.find((c) => c.state === 'rejected')?.value).toBeInstanceOf(QueueClearedError);
    expect(q.stats()).toMatchObject({ size: 0, pending: 0 });
  });

  it('a fence that refuses drops the request unsent, its error to the caller, and frees its slot', async () => {
    const { q, clock } = setup({ ratePerSec: 100, concurrency: 1 });
    let refuse = true;
    const fence: SendFence = {
      closed: new AbortController().signal,
      async pass() {
        if (refuse) throw new LostLease('paused past the TTL');
      },
    };
    const remove = q.fence(fence);
    let sent = 0;
    const refused = track(q.schedule(create(), async () => sent++));
    await clock.runAll();
    await flush();
    expect(refused.state).toBe('rejected');
    expect(refused.value).toBeInstanceOf(LostLease);
    expect(sent).toBe(0);
    refuse = false;
    await q.schedule(create(), async () => sent++);
    remove();
    refuse = true;
    // Removed: the next request goes without asking it.
    await q.schedule(create(), async () => sent++);
    expect(sent).toBe(2);
  });

  it('asks the fence once per attempt, just before the wire', async () => {
    const { q } = setup({ ratePerSec: 100 });
    const l = lease();
    q.fence(l.fence);
    await q.schedule(create(), async () => 'ok');
    await q.schedule(create(), async () => 'ok');
    expect(l.passes()).toBe(2);
  });
});
