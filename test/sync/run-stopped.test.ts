// Reading the client's errors: a write never sent because the run stopped is skipped (the next run does it), any
// other is failed with its message; status, an unknown outcome, a definite 404 and a capability refusal are read
// from the fields every marketplace error carries.
import { describe, expect, it } from 'vitest';
import { registerSecret } from '../../src/log/scrubber.ts';
import { NotFoundError, ServerError } from '../../src/marketplace/marketplace-errors.ts';
import { QueueClearedError } from '../../src/queue/queue-cleared-error.ts';
import { isCapabilityRefusal } from '../../src/sync/execute/capability-refusal.ts';
import {
  failure,
  isDefinitelyNotFound,
  isOutcomeUnknown,
  RunStoppedError,
  StoppedAfterArchiveError,
  statusOf,
  stoppedBeforeSent,
} from '../../src/sync/run-stopped.ts';
import { errorMessage } from '../../src/log/scrubber.ts';

describe('stopped writes', () => {
  it('says why a write was not begun, from an Error or any reason', () => {
    const e = new RunStoppedError(new Error('lease lost'));
    expect([e.name, e.message, e.outcomeUnknown]).toEqual(['RunStoppedError', 'not begun: lease lost', false]);
    expect(new RunStoppedError('SIGINT').message).toBe('not begun: SIGINT');
  });

  it('counts a cleared queue and a stopped run as never sent, nothing else', () => {
    expect(stoppedBeforeSent(new QueueClearedError('POST', '/items'))).toBe(true);
    expect(stoppedBeforeSent(new RunStoppedError('x'))).toBe(true);
    expect(stoppedBeforeSent(new Error('x'))).toBe(false);
    expect(stoppedBeforeSent(new StoppedAfterArchiveError(7))).toBe(false);
  });

  it('skips, not fails, a write stopped before it was sent or after its archive', () => {
    const msg = 'not sent: the run was stopped before it was sent; the next run sends it';
    expect(failure(new RunStoppedError('x'), 'a ', ' b')).toEqual({ outcome: 'skipped', message: msg });
    expect(failure(new QueueClearedError('PATCH', '/items/1'))).toEqual({ outcome: 'skipped', message: msg });
    const after = new StoppedAfterArchiveError(42);
    expect(after.name).toBe('StoppedAfterArchiveError');
    expect(after.outcomeUnknown).toBe(false);
    expect(failure(after, 'a ', ' b')).toEqual({
      outcome: 'skipped',
      message:
        'archived #42 to re-create it, but the run was stopped before the create was sent: it is not listed ' +
        'until the next run creates it again',
    });
  });

  it('fails any other error with its message between prefix and suffix, secrets scrubbed', () => {
    registerSecret('sk-errors-test-secret');
    expect(failure(new Error('bad sk-errors-test-secret'), 'create: ', ' (retry)')).toEqual({
      outcome: 'failed',
      message: 'create: bad [REDACTED] (retry)',
    });
    expect(failure('plain')).toEqual({ outcome: 'failed', message: 'plain' });
    expect(errorMessage(42)).toBe('42');
  });

  it("fails with the offer's credentials scrubbed from the message, in any form the marketplace quoted them", () => {
    const quoted = new Error('422: The credentials are invalid: {"login": "jo", "password": "p\\"w\\u00e9-long"}');
    expect(failure(quoted, '', '', ['jo', 'p"wé-long'])).toEqual({
      outcome: 'failed',
      message: '422: The credentials are invalid: {"login": "[REDACTED]", "password": "[REDACTED]"}',
    });
  });
});

describe('reading an error', () => {
  it('reads a numeric status only', () => {
    expect(statusOf({ status: 422 })).toBe(422);
    expect(statusOf({ status: '422' })).toBeUndefined();
    expect(statusOf(null)).toBeUndefined();
    expect(statusOf(undefined)).toBeUndefined();
  });

  it('reads an unknown outcome only when said so', () => {
    expect(isOutcomeUnknown({ outcomeUnknown: true })).toBe(true);
    expect(isOutcomeUnknown({ outcomeUnknown: 'true' })).toBe(false);
    expect(isOutcomeUnknown({})).toBe(false);
    expect(isOutcomeUnknown(null)).toBe(false);
  });

  it('takes only the client JSON 404 as definitely not there', () => {
    expect(isDefinitelyNotFound(new NotFoundError({ method: 'GET', path: '/items/1', status: 404 }))).toBe(true);
    expect(isDefinitelyNotFound({ status: 404 })).toBe(false);
    expect(isDefinitelyNotFound(new ServerError({ method: 'GET', path: '/items/1', status: 503 }))).toBe(false);
  });

  it.each([
    [404, true],
    [405, true],
    [422, true],
    [501, true],
    [400, false],
    [409, false],
    [500, false],
    [undefined, false],
  ])('status %s refuses a route: %s', (status, refused) => {
    expect(isCapabilityRefusal({ status })).toBe(refused);
  });
});
