// Property tests of the response decoders: whatever a server sends, decoding returns a value or
// throws a DecodeError, which decodeResponse turns into a BadResponse naming the request and status; error
// answers always become a MarketplaceError. FUZZ_RUNS=N for a longer search (test/support/fuzz.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBulkRemove } from '../../src/marketplace/accounts.ts';
import { decodeArchive } from '../../src/marketplace/archive-answer.ts';
import { decodeBulkUpdate } from '../../src/marketplace/bulk-outcomes.ts';
import {
  DecodeError,
  decodeField,
  decodeImage,
  decodeListBody,
  decodeOffer,
  decodeResponse,
  decodeTimestamp,
  unwrapSingle,
} from '../../src/marketplace/decode.ts';
import { BadResponseError, MarketplaceError } from '../../src/marketplace/marketplace-errors.ts';
import { errorFromResponse } from '../../src/marketplace/http-errors.ts';
import { decodeImageDelete } from '../../src/marketplace/images.ts';
import { RESOURCE_KINDS } from '../../src/marketplace/marketplace-client.ts';
import { OFFER_FIELDS } from '../../src/marketplace/api-field-types.ts';
import { anyText, fuzzParams, fuzzTimeout } from '../support/fuzz.ts';

const kind = fc.constantFrom(...RESOURCE_KINDS);
const json = fc.jsonValue({ maxDepth: 4 });

/** Offer-shaped objects: the real field names with values of any type, plus envelopes around them. */
const offerLike = kind.chain((k) =>
  fc.tuple(
    fc.constant(k),
    fc.dictionary(
      fc.constantFrom(
        'id',
        'external_id',
        'status',
        'created_at',
        'updated_at',
        'sold_at',
        ...Object.keys(OFFER_FIELDS[k]),
      ),
      fc.oneof(json, fc.string(), fc.integer(), fc.double(), fc.constant(null)),
    ),
  ),
);
const body = fc.oneof(
  json,
  offerLike.map(([, o]) => o),
  offerLike.map(([, o]) => ({ data: o })),
  fc.array(offerLike.map(([, o]) => o)).map((data) => ({ data, meta: { current_page: 1, last_page: 2 } })),
  fc.record({ data: fc.oneof(json, fc.record({ data: fc.array(json) })), meta: json, links: json }),
);

/** Runs a decoder as the client does; anything but a value or a BadResponse is a failure. */
function decodesOrRefuses(decode: (b: unknown) => unknown, b: unknown): void {
  const res = { status: 200, body: b, where: { method: 'GET', path: '/api/v1/accounts' }, snippet: '{...' };
  try {
    decodeResponse(res, decode);
  } catch (err) {
    expect(err).toBeInstanceOf(BadResponseError);
    expect((err as Error).message).toMatch(/^GET \/api\/v1\/accounts: 200 /);
  }
}

describe('decoders', () => {
  const decoders: [string, (b: unknown) => unknown][] = [
    ['list body', decodeListBody],
    ['single offer', (b) => decodeOffer('accounts', unwrapSingle(b))],
    ['listed offer', (b) => decodeOffer('items', unwrapSingle(b), true)],
    ['image', (b) => decodeImage(unwrapSingle(b))],
    ['archive', decodeArchive],
    ['bulk remove', decodeBulkRemove],
    ['bulk update', decodeBulkUpdate],
    ['image delete', decodeImageDelete],
  ];
  it.each(decoders)(
    '%s: any body decodes or is refused with a DecodeError',
    (_name, decode) => {
      fc.assert(
        fc.property(body, (b) => decodesOrRefuses(decode, b)),
        fuzzParams(500),
      );
    },
    fuzzTimeout(500),
  );

  it(
    'offer-shaped objects of every kind: a RemoteOffer or a DecodeError',
    () => {
      fc.assert(
        fc.property(offerLike, fc.boolean(), ([k, o], inList) => {
          try {
            const offer = inList ? decodeOffer(k, o, true) : decodeOffer(k, o);
            if (offer) {
              expect(Number.isSafeInteger(offer.id)).toBe(true);
              expect(offer.externalId).toEqual(expect.any(String));
            }
          } catch (err) {
            expect(err).toBeInstanceOf(DecodeError);
          }
        }),
        fuzzParams(1000),
      );
    },
    fuzzTimeout(1000),
  );

  it(
    'single fields and timestamps never throw',
    () => {
      const types = [...new Set(RESOURCE_KINDS.flatMap((k) => Object.values(OFFER_FIELDS[k])))];
      fc.assert(
        fc.property(fc.constantFrom(...types), fc.oneof(json, fc.string(), anyText()), (type, v) => {
          decodeField(type, v);
          const t = decodeTimestamp(v);
          if (t !== undefined) expect(Number.isFinite(t)).toBe(true);
        }),
        fuzzParams(1000),
      );
    },
    fuzzTimeout(1000),
  );
});

describe('error answers', () => {
  it(
    'any status, Retry-After and body become a MarketplaceError naming the request',
    () => {
      const status = fc.oneof(fc.integer({ min: 300, max: 599 }), fc.integer({ min: 100, max: 199 }));
      const retryAfter = fc.option(
        fc.oneof(
          anyText(),
          fc.integer().map(String),
          fc.date().map((d) => d.toString()),
        ),
      );
      const text = fc.oneof(
        anyText(),
        json.map((v) => JSON.stringify(v)),
        body.map((v) => JSON.stringify(v)),
      );
      fc.assert(
        fc.property(status, retryAfter, text, (s, ra, t) => {
          const err = errorFromResponse(
            { method: 'PATCH', path: '/api/v1/items/7' },
            s,
            { 'retry-after': ra ?? undefined },
            t,
            Date.now(),
          );
          expect(err).toBeInstanceOf(MarketplaceError);
          expect(err.message.startsWith(`PATCH /api/v1/items/7: ${s} `)).toBe(true);
          if (err.retryAfterMs !== undefined)
            expect(err.retryAfterMs >= 0 && Number.isFinite(err.retryAfterMs)).toBe(true);
        }),
        fuzzParams(1000),
      );
    },
    fuzzTimeout(1000),
  );
});
