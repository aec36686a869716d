import { describe, expect, it } from 'vitest';
import { QueueClearedError } from '../../src/queue/queue-cleared-error.ts';
import { classify } from '../../src/queue/retry-policy.ts';

describe('QueueClearedError', () => {
  it('reads as never sent: not to be retried, and no doubt about its outcome (the executor skips the write)', () => {
    const err = new QueueClearedError('POST', '/sale/offers');
    expect(err).toMatchObject({ retryable: false, outcomeUnknown: false, method: 'POST', path: '/sale/offers' });
    expect(classify(err, { idempotent: true })).toMatchObject({ retry: false, rateLimited: false });
  });

  it('names its class and the request it dropped', () => {
    const err = new QueueClearedError('PATCH', '/sale/offers/7');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('QueueClearedError');
    expect(err.message).toBe('PATCH /sale/offers/7 was not sent: the request queue was cleared');
  });
});
