// Every answer the sandbox gives before a handler runs, pinned whole (status, the headers that matter, body) with
// the counters they leave: no route, a wrong method, a disabled route, no key, a 5xx of the faults, a request
// outside the API, an image that is not there. A change in any step in front of the handlers shows here.
import { describe, expect, it } from 'vitest';
import { account, useSandbox, type Answer } from './support.ts';

const { sb, api } = useSandbox();

const HEADERS = ['allow', 'www-authenticate', 'content-type', 'retry-after', 'idempotent-replayed'];

/** The status, the headers of HEADERS it has, and the text of an answer. */
function whole(a: Answer) {
  const headers = Object.fromEntries(HEADERS.flatMap((h) => (a.headers.has(h) ? [[h, a.headers.get(h)]] : [])));
  return { status: a.status, headers, text: a.text };
}

describe('answers in front of the handlers', () => {
  it('no route, a wrong method, no key, outside the API, no such image', async () => {
    sb().reset();
    const answers = [
      await api('GET', '/api/v1/nothing'),
      await api('PUT', '/api/v1/accounts'),
      await api('GET', '/api/v1/accounts', undefined, { key: null }),
      await api('GET', '/api/v1/accounts', undefined, { key: 'wrong' }),
      await api('GET', '/elsewhere'),
      await api('GET', '/storage/gallery/none.png'),
      await api('POST', '/storage/gallery/none.png'),
    ];
    expect(answers.map(whole)).toMatchInlineSnapshot(`
      [
        {
          "headers": {
            "content-type": "application/json",
          },
          "status": 404,
          "text": "{"message":"The route /api/v1/nothing could not be found."}",
        },
        {
          "headers": {
            "allow": "GET, POST",
            "content-type": "application/json",
          },
          "status": 405,
          "text": "{"message":"The PUT method is not supported for route /api/v1/accounts. Supported methods: GET, POST."}",
        },
        {
          "headers": {
            "content-type": "application/json",
            "www-authenticate": "Bearer",
          },
          "status": 401,
          "text": "{"message":"Unauthenticated."}",
        },
        {
          "headers": {
            "content-type": "application/json",
            "www-authenticate": "Bearer",
          },
          "status": 401,
          "text": "{"message":"Unauthenticated."}",
        },
        {
          "headers": {
            "content-type": "application/json",
          },
          "status": 404,
          "text": "{"message":"The route /elsewhere could not be found."}",
        },
        {
          "headers": {
            "content-type": "application/json",
          },
          "status": 404,
          "text": "{"message":"No image none.png."}",
        },
        {
          "headers": {
            "content-type": "application/json",
          },
          "status": 404,
          "text": "{"message":"No image none.png."}",
        },
      ]
    `);
    expect(sb().counters()).toMatchInlineSnapshot(`
      {
        "byRoute": {
          "GET (no route)": {
            "404": 1,
          },
          "GET /api/v1/accounts": {
            "401": 2,
          },
          "GET /storage/gallery/{filename}": {
            "404": 1,
          },
          "POST /storage/gallery/{filename}": {
            "404": 1,
          },
          "PUT /api/v1/accounts": {
            "405": 1,
          },
        },
        "rateLimited": 0,
        "total": 6,
        "writes": 0,
      }
    `);
  });

  it('disabled routes: the account update 405, the others 404', async () => {
    sb().reset();
    await api('POST', '/api/v1/accounts', account(1));
    sb().setFaults({ disabled: ['accounts.update', 'accounts.bulkRemove'] });
    const answers = [
      await api('PATCH', '/api/v1/accounts/acc-1', { price: 5 }),
      await api('POST', '/api/v1/accounts/bulk-remove', { external_ids: ['acc-1'] }),
    ];
    expect(answers.map(whole)).toMatchInlineSnapshot(`
      [
        {
          "headers": {
            "allow": "GET, DELETE",
            "content-type": "application/json",
          },
          "status": 405,
          "text": "{"message":"The PATCH method is not supported for route /api/v1/accounts/acc-1."}",
        },
        {
          "headers": {
            "content-type": "application/json",
          },
          "status": 404,
          "text": "{"message":"The route /api/v1/accounts/bulk-remove could not be found."}",
        },
      ]
    `);
  });

  it('a 5xx of the faults comes before the key is asked for', async () => {
    sb().reset();
    sb().setFaults({ errorRate: 1, seed: 7 });
    const answers = [];
    for (let n = 0; n < 6; n++) answers.push(await api('GET', '/api/v1/accounts', undefined, { key: null }));
    expect(answers.map(whole)).toMatchInlineSnapshot(`
      [
        {
          "headers": {
            "content-type": "application/json",
          },
          "status": 503,
          "text": "{"message":"Service Unavailable"}",
        },
        {
          "headers": {
            "content-type": "application/json",
          },
          "status": 500,
          "text": "{"message":"Server Error"}",
        },
        {
          "headers": {
            "content-type": "application/json",
          },
          "status": 503,
          "text": "{"message":"Service Unavailable"}",
        },
        {
          "headers": {
            "content-type": "application/json",
          },
          "status": 502,
          "text": "{"message":"Bad Gateway"}",
        },
        {
          "headers": {
            "content-type": "application/json",
          },
          "status": 500,
          "text": "{"message":"Server Error"}",
        },
        {
          "headers": {
            "content-type": "application/json",
          },
          "status": 503,
          "text": "{"message":"Service Unavailable"}",
        },
      ]
    `);
  });

  it('an Idempotency-Key used again with another body', async () => {
    sb().reset();
    sb().setRepresentation({ idempotencyKeys: true });
    const headers = { 'idempotency-key': 'same' };
    const answers = [
      await api('POST', '/api/v1/items', { external_id: 'i-1', title: 'One', price: 100 }, { headers }),
      await api('POST', '/api/v1/items', { external_id: 'i-2', title: 'Two', price: 100 }, { headers }),
    ];
    expect(whole(answers[1]!)).toMatchInlineSnapshot(`
      {
        "headers": {
          "content-type": "application/json",
        },
        "status": 422,
        "text": "{"message":"The Idempotency-Key was already used with a different request body."}",
      }
    `);
    expect(answers[0]!.status === 200 || answers[0]!.status === 201 || answers[0]!.status === 422).toBe(true);
  });
});
