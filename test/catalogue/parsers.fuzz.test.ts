// Property tests of the catalogue's parsers and normalisers: arbitrary and mutated files never
// throw, only give problems that name the file and a place (line or pointer); the same valid offers written
// in any of the four formats read to the same offers. FUZZ_RUNS=N for a longer search (test/support/fuzz.ts).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { OfferKind } from '../../src/catalogue/desired-offer.ts';
import { parseFile } from '../../src/catalogue/formats.ts';
import { TEXT_FORMATS as FORMATS, type TextFormat as Format } from '../../src/catalogue/layout.ts';
import { normaliseRecord } from '../../src/catalogue/normalise.ts';
import { FORBIDDEN_KEYS } from '../../src/input/forbidden-keys.ts';
import { anyText, fuzzParams, fuzzTimeout, mutated } from '../support/fuzz.ts';
import { EXTENSION, validOffers, writeOffers } from './support/catalogue-arbitrary.ts';
import { cleanup, load, tmpCatalogue } from './support/tmp-catalogue.ts';

afterEach(cleanup);

const FOLDER: Readonly<Record<OfferKind, string>> = { account: 'accounts', item: 'items', topup: 'top-ups' };

/** What Object.prototype holds before any input is read: no parse may add to it. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();
const prototypeUntouched = (): void => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES);
};

/** Parses and normalises one file's text as the catalogue does; asserts every problem is placed. */
function parseAndCheck(format: Format, kind: OfferKind, text: string): void {
  const parsed = parseFile(format, text);
  prototypeUntouched();
  for (const p of parsed.problems) {
    expect(p.message).toEqual(expect.any(String));
    expect(p.message.length).toBeGreaterThan(0);
    // A problem of the file names a line (or a pointer into it).
    expect(p.line !== undefined || p.pointer !== undefined, JSON.stringify(p)).toBe(true);
    if (p.line !== undefined) expect(Number.isSafeInteger(p.line) && p.line >= 1, JSON.stringify(p)).toBe(true);
  }
  for (const record of parsed.records) {
    expect(record.line !== undefined || record.pointer !== undefined).toBe(true);
    const n = normaliseRecord(parsed.kind ?? kind, record, `${FOLDER[kind]}/f.${EXTENSION[format]}`);
    for (const p of n.problems) {
      expect(p.file).toBe(`${FOLDER[kind]}/f.${EXTENSION[format]}`);
      expect(p.line !== undefined || p.pointer !== undefined, JSON.stringify(p)).toBe(true);
    }
    if (n.valid) expect(n.externalId).toEqual(expect.any(String));
  }
  prototypeUntouched();
}

const kindArb = fc.constantFrom<OfferKind>('account', 'item', 'topup');
const validText = (format: Format): fc.Arbitrary<string> =>
  validOffers().map(({ offers }) => writeOffers(format, offers));

describe.each(FORMATS)('%s parser', (format) => {
  it(
    'arbitrary text never throws; every problem has a place',
    () => {
      fc.assert(
        fc.property(kindArb, anyText(), (kind, text) => parseAndCheck(format, kind, text)),
        fuzzParams(400),
      );
    },
    fuzzTimeout(400),
  );

  it(
    'a valid file with a few edits never throws; every problem has a place',
    () => {
      fc.assert(
        fc.property(kindArb, mutated(validText(format)), (kind, text) => parseAndCheck(format, kind, text)),
        fuzzParams(400),
      );
    },
    fuzzTimeout(400),
  );
});

describe('arbitrary values through the normalisers', () => {
  it(
    'any JSON value as a record never throws and gives placed problems',
    () => {
      const record = fc.oneof(
        fc.jsonValue(),
        fc.dictionary(
          fc.constantFrom(
            'external_id',
            'title',
            'price',
            'stock',
            'champions',
            'credentials',
            'parameters',
            'rank',
            'division',
            'current_rank',
            'image_ids',
            'images',
            'active',
            'waiting_time_unit',
            'status',
            'level',
            'winrate_percent',
            'game_data',
            'offer_amount',
            'flex_rank',
            'skins',
            ...FORBIDDEN_KEYS,
          ),
          fc.jsonValue(),
        ),
      );
      fc.assert(
        fc.property(kindArb, record, (kind, value) => {
          const n = normaliseRecord(kind, { value, line: 3, pointer: '/2' }, 'items/x.json');
          for (const p of n.problems) {
            expect(p.file).toBe('items/x.json');
            expect(p.line).toBe(3);
            expect(p.pointer?.startsWith('/2')).toBe(true);
          }
        }),
        fuzzParams(1000),
      );
    },
    fuzzTimeout(1000),
  );
});

describe('keys that name a prototype', () => {
  it(
    'in an offer of any format: an error at a place naming the key, no offer archived, Object.prototype untouched',
    () => {
      fc.assert(
        fc.property(
          validOffers(),
          fc.constantFrom(...FORMATS),
          fc.constantFrom(...FORBIDDEN_KEYS),
          fc.nat(),
          ({ kind, offers }, format, key, pick) => {
            // The key as an own property, as a parser of the file would make it (a literal would set the prototype).
            const at = pick % offers.length;
            const poisoned = offers.map((o, i) =>
              i === at ? JSON.parse(`{"${key}":{"status":"archived"},${JSON.stringify(o).slice(1)}`) : o,
            );
            const file = `${FOLDER[kind]}/f.${EXTENSION[format]}`;
            const parsed = parseFile(format, writeOffers(format, poisoned));
            const problems = [...parsed.problems];
            for (const record of parsed.records) {
              const n = normaliseRecord(parsed.kind ?? kind, record, file, parsed.locate);
              problems.push(...n.problems);
              if (n.valid) expect((n.offer.fields as { status?: string }).status).not.toBe('archived');
            }
            prototypeUntouched();
            const refused = problems.filter((p) => p.severity === 'error' && p.message.includes(`'${key}' cannot be`));
            expect(refused.length, JSON.stringify(problems)).toBeGreaterThan(0);
            for (const p of refused) expect(p.line, JSON.stringify(p)).toEqual(expect.any(Number));
          },
        ),
        fuzzParams(300),
      );
    },
    fuzzTimeout(300),
  );
});

describe('the four formats agree', () => {
  it(
    'the same offers written as JSON, NDJSON, CSV and YAML read to the same offers',
    async () => {
      await fc.assert(
        fc.asyncProperty(validOffers(), async ({ kind, offers }) => {
          const read = [];
          for (const format of FORMATS) {
            const file = `${FOLDER[kind]}/offers.${EXTENSION[format]}`;
            const s = await load(tmpCatalogue({ [file]: writeOffers(format, offers) }));
            expect(
              s.problems.filter((p) => p.severity === 'error'),
              format,
            ).toEqual([]);
            read.push(
              s.offers.map((o) => ({
                externalId: o.externalId,
                hash: o.hash,
                fields: o.fields,
                ...('credentials' in o ? { credentials: o.credentials } : {}),
              })),
            );
          }
          expect(read[0]!.length).toBe(offers.length);
          for (let i = 1; i < read.length; i++) expect(read[i], FORMATS[i]).toEqual(read[0]);
          cleanup();
        }),
        fuzzParams(60),
      );
    },
    fuzzTimeout(60, 200),
  );
});

describe('deep nesting (found by fuzzing)', () => {
  // A YAML file of 100,000 '[' could abort the process inside yaml's composer; JSON account details nested
  // 10,000 deep overflowed the stack while hashing and failed the whole load. Now each is that file's error.
  const nest = (n: number): string => '['.repeat(n) + ']'.repeat(n);
  it.each([
    ['accounts/a.yaml', `- ${nest(100_000)}\n`, 1],
    ['accounts/b.yaml', `- external_id: b\n  title: t\n  price: 1\n  parameters: {x: ${nest(5_000)}}\n`, 4],
    ['accounts/c.json', `{"external_id":"c","title":"t","price":1,"parameters":{"x":${nest(10_000)}}}`, 1],
    ['accounts/d.ndjson', `{"external_id":"d","title":"t","price":1,"parameters":{"x":${nest(100_000)}}}\n`, 1],
  ])('%s: an error of that file, the good offer beside it loads', async (file, text, line) => {
    const good = 'items/good.json';
    const s = await load(tmpCatalogue({ [file]: text, [good]: '{"external_id":"g","title":"t","price":100}' }));
    expect(s.offers.map((o) => o.externalId)).toEqual(['g']);
    const errors = s.problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => [p.file, p.line])).toEqual([[file, line]]);
    expect(errors[0]!.message).toMatch(/nested more than \d+ levels deep/);
  });
});
