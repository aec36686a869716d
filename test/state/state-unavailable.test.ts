// Which errors the daemon takes for a state db that is away (tried again soon) rather than a statement it refused.
import { describe, expect, it } from 'vitest';
import { isStateUnavailable } from '../../src/state/state-unavailable.ts';

function withCode(code: string, message = 'failed'): Error {
  return Object.assign(new Error(message), { code });
}

function causedBy(inner: unknown, levels: number): unknown {
  let e = inner;
  for (let i = 0; i < levels; i++) e = new Error(`wrapper ${i}`, { cause: e });
  return e;
}

describe('isStateUnavailable', () => {
  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE'])(
    'a network error %s is the state db away',
    (code) => {
      expect(isStateUnavailable(withCode(code))).toBe(true);
    },
  );

  it("PostgreSQL's cannot-serve-now class (57P01 admin shutdown, 57P03 starting up) is the state db away", () => {
    expect(isStateUnavailable(withCode('57P01'))).toBe(true);
    expect(isStateUnavailable(withCode('57P03'))).toBe(true);
  });

  it("pg's own words for a lost or unmade connection are the state db away", () => {
    expect(isStateUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isStateUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isStateUnavailable(new Error('Connection ended'))).toBe(true);
  });

  it('a statement the database refused, or any other error, is not', () => {
    expect(isStateUnavailable(withCode('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    expect(isStateUnavailable(withCode('42P01', 'relation "offers" does not exist'))).toBe(false);
    expect(isStateUnavailable(withCode('E57P01'))).toBe(false);
    expect(isStateUnavailable(Object.assign(new Error('x'), { code: 57 }))).toBe(false);
    expect(isStateUnavailable(new Error('disk full'))).toBe(false);
  });

  it('something thrown that is not an Error is not', () => {
    expect(isStateUnavailable('ECONNREFUSED')).toBe(false);
    expect(isStateUnavailable({ code: 'ECONNREFUSED', message: 'Connection terminated' })).toBe(false);
    expect(isStateUnavailable(undefined)).toBe(false);
  });

  it('the cause is followed through wrappers, four deep at most', () => {
    expect(isStateUnavailable(causedBy(withCode('ECONNREFUSED'), 1))).toBe(true);
    expect(isStateUnavailable(causedBy(new Error('Connection terminated'), 4))).toBe(true);
    expect(isStateUnavailable(causedBy(withCode('ECONNREFUSED'), 5))).toBe(false);
    expect(isStateUnavailable(causedBy('ECONNREFUSED', 2))).toBe(false);
  });
});
