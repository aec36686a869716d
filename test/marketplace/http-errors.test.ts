// Which typed error a status or an exception becomes, and the fields the request queue reads.
import { describe, expect, it } from 'vitest';
import {
  AbortedError,
  BadResponseError,
  ClientError,
  ConflictError,
  ForbiddenError,
  IdleTimeoutError,
  MethodNotAllowedError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnauthenticatedError,
  ValidationError,
} from '../../src/marketplace/marketplace-errors.ts';
import { errorFromException, errorFromResponse } from '../../src/marketplace/http-errors.ts';

const GET = { method: 'GET', path: '/api/v1/accounts/12' };
const POST = { method: 'POST', path: '/api/v1/accounts' };
const NOW = Date.UTC(2024, 0, 1);
const json = (o: unknown) => JSON.stringify(o);

describe('errorFromResponse', () => {
  it.each([
    [401, UnauthenticatedError, false],
    [403, ForbiddenError, false],
    [404, NotFoundError, false],
    [405, MethodNotAllowedError, false],
    [408, ClientError, true],
    [409, ConflictError, false],
    [413, PayloadTooLargeError, false],
    [418, ClientError, false],
    [422, ValidationError, false],
    [429, RateLimitedError, true],
    [500, ServerError, true],
    [501, ServerError, false],
    [503, ServerError, true],
    [302, BadResponseError, false],
  ])('%i -> %o (retryable %j)', (status, type, retryable) => {
    const err = errorFromResponse(GET, status, {}, json({ message: 'Nope.' }), NOW);
    expect(err).toBeInstanceOf(type);
    expect(err.status).toBe(status);
    expect(err.retryable).toBe(retryable);
    expect(err.method).toBe('GET');
    expect(err.path).toBe('/api/v1/accounts/12');
    expect(err.serverMessage).toBe('Nope.');
    expect(err.message).toContain('GET /api/v1/accounts/12');
    expect(err.message).toContain('Nope.');
  });

  it.each([
    [500, true],
    [502, true],
    [501, false],
    [429, false],
    [422, false],
    [409, false],
  ])('a write answered %i: outcomeUnknown %j', (status, unknown) => {
    expect(errorFromResponse(POST, status, {}, '', NOW).outcomeUnknown).toBe(unknown);
    expect(errorFromResponse(GET, status, {}, '', NOW).outcomeUnknown).toBe(false);
  });

  it('reads Retry-After into a 429', () => {
    const err = errorFromResponse(POST, 429, { 'retry-after': '3' }, json({ message: 'Too Many Attempts.' }), NOW);
    expect(err).toMatchObject({ rateLimited: true, retryable: true, retryAfterMs: 3000 });
    expect(err.message).toContain('retry after 3000 ms');
  });

  it('keeps a 422 message and its per-field detail', () => {
    const err = errorFromResponse(
      POST,
      422,
      {},
      json({
        message: 'The title field is required.',
        errors: { title: ['The title field is required.'], price: 'bad' },
      }),
      NOW,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).errors).toEqual({ title: ['The title field is required.'], price: ['bad'] });
    expect(err.message).toContain('fields: title, price');
  });

  it('takes an HTML 404 for an unreadable answer, never a definite "not found"', () => {
    const err = errorFromResponse(GET, 404, {}, '<html><body>Not Found</body></html>', NOW);
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err).not.toBeInstanceOf(NotFoundError);
    expect(err.bodySnippet).toContain('<html>');
  });

  it("takes a database's errorInfo answer for a server error, and keeps none of its tables and columns", () => {
    const PATCH = { method: 'PATCH', path: '/api/v1/items/7' };
    const body = json({
      errorInfo: ['22007', 1366, "Incorrect integer value: 'abc' for column `shop`.`offers`.`stock` at row 1"],
    });
    const err = errorFromResponse(PATCH, 500, {}, body, NOW);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ retryable: true, serverMessage: 'the marketplace had a database error' });
    expect(err.bodySnippet).toBeUndefined();
    expect(err.message).toContain('the marketplace had a database error');
    expect(JSON.stringify({ ...err, message: err.message })).not.toMatch(/errorInfo|offers|stock|Incorrect|22007/);
  });

  it('keeps the first bytes of a non-JSON error body', () => {
    const err = errorFromResponse(GET, 502, {}, `<html>${'x'.repeat(1000)}`, NOW);
    expect(err.bodySnippet!.length).toBeLessThan(210);
    expect(err.message).toContain('body starts: <html>');
  });
});

describe('errorFromException', () => {
  const DEADLINES = { timeoutMs: 1000, idleTimeoutMs: 500 };
  const code = (c: string) => Object.assign(new Error(c), { code: c });
  it.each([
    ['our deadline', new Error('aborted'), { timedOut: true, aborted: false }, TimeoutError, true, true],
    ['headers timeout', code('UND_ERR_HEADERS_TIMEOUT'), { timedOut: false, aborted: false }, TimeoutError, true, true],
    [
      'body idle timeout',
      code('UND_ERR_BODY_TIMEOUT'),
      { timedOut: false, aborted: false },
      IdleTimeoutError,
      true,
      true,
    ],
    ['the caller aborted', new Error('aborted'), { timedOut: false, aborted: true }, AbortedError, false, true],
    ['connection refused', code('ECONNREFUSED'), { timedOut: false, aborted: false }, NetworkError, true, false],
    [
      'connect timeout',
      code('UND_ERR_CONNECT_TIMEOUT'),
      { timedOut: false, aborted: false },
      NetworkError,
      true,
      false,
    ],
    ['socket closed', code('UND_ERR_SOCKET'), { timedOut: false, aborted: false }, NetworkError, true, true],
    ['reset', code('ECONNRESET'), { timedOut: false, aborted: false }, NetworkError, true, true],
    [
      'untrusted certificate',
      code('SELF_SIGNED_CERT_IN_CHAIN'),
      { timedOut: false, aborted: false },
      NetworkError,
      false,
      false,
    ],
  ])('%s', (_name, err, abort, type, retryable, unknownOnWrite) => {
    const onWrite = errorFromException(POST, err, abort, DEADLINES);
    expect(onWrite).toBeInstanceOf(type);
    expect(onWrite.retryable).toBe(retryable);
    expect(onWrite.outcomeUnknown).toBe(unknownOnWrite);
    expect(errorFromException(GET, err, abort, DEADLINES).outcomeUnknown).toBe(false);
  });

  it('finds the code on a cause', () => {
    const err = Object.assign(new Error('fetch failed'), {
      cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
    });
    expect(errorFromException(POST, err, { timedOut: false, aborted: false }, DEADLINES).outcomeUnknown).toBe(false);
  });
});
