// The fast reader of simple YAML files (yaml-simple.ts) against yaml's own parser: wherever it answers, its
// records are exactly yaml's (values, pointers, lines); everything else it leaves to yaml.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../src/catalogue/formats.ts';
import { parseYamlFully } from '../../src/catalogue/formats/yaml.ts';
import { normaliseRecord } from '../../src/catalogue/normalise.ts';
import { simpleYamlRecords } from '../../src/catalogue/yaml-simple.ts';
import { fuzzParams, fuzzTimeout } from '../support/fuzz.ts';

/** yaml's records for a file the fast reader accepts: the same, and the file read without a problem. */
function expectSameAsYaml(text: string): boolean {
  const fast = simpleYamlRecords(text);
  if (!fast) return false;
  const full = parseYamlFully(text);
  expect({ problems: full.problems, unreadable: full.unreadable, kind: full.kind }).toEqual({
    problems: [],
    unreadable: false,
    kind: undefined,
  });
  expect(fast).toEqual(full.records);
  return true;
}

/** `usual` 19 times in 20, else `odd`. */
const mostly = <T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.tuple(fc.integer({ min: 0, max: 19 }), usual, odd).map(([n, u, o]) => (n < 19 ? u : o));
const KEYS = ['external_id', 'title', 'price', 'stock', 'a', 'x.y', 'a-b', '$schema', 'kind', 'offers'];
const ODD_KEYS = ['null', 'True', 'toString', '__proto__', 'a b', '-a', '"q"', 'k:', '1', '~', 'é', ''];
/** Values the fast reader takes (each resolved as yaml does), then values it must leave to yaml. */
const SIMPLE_VALUES = [
  ...['1', '-1', '+1', '007', '-0', '1.5', '1.', '.5', '-.5', '12345678901234567890', '~', 'null', 'Null', 'NULL'],
  ...['nULL', 'true', 'True', 'TRUE', 'tRUE', 'false', 'yes', 'no', 'on', '"x"', '"1"', '""', "'it''s'", "''"],
  ...['"a # b"', "'a: b'", 'a:b', 'http://x.test/a?b=1', 'é', '🔥 hot', '\u00a0x', 'x\u00a0', 'Skin "x" 5'],
  ...['plain text', '_x', 'x [a] {b} & * ! | > % @ ` ?', '"[a, b]"', "'#1'", 'Yes', 'NaN', 'Infinity'],
];
const TRICKY_VALUES = [
  ...['0x1F', '0o17', '1e3', '.inf', '-.Inf', '.nan', '"a\\"b"', 'a # b', 'a: b', 'a:', '- x', '[a, b]', '{a: 1}'],
  ...['&a x', '*a', '!t x', '|', '>', '@x', '`x', '%x', '?x', ',x', 'x\u2028y', '"open', "'x' y", 'a\tb', '$x'],
];

const scalar = mostly(
  fc.constantFrom(...SIMPLE_VALUES),
  fc.oneof(fc.constantFrom(...TRICKY_VALUES), fc.string({ maxLength: 8 })),
);
const colon = mostly(fc.constantFrom(': ', ':  '), fc.constantFrom(':', ' : '));
const trailing = mostly(fc.constantFrom('', ' '), fc.constantFrom('  # c', '\t'));
/** One offer's `key: value` lines, keys mostly distinct. */
const offerLines = fc
  .tuple(
    fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 5 }),
    mostly(fc.constant(null), fc.constantFrom(...ODD_KEYS)),
  )
  .chain(([keys, odd]) => {
    const all = odd === null ? keys : [...keys, odd];
    return fc.tuple(...all.map((k) => fc.tuple(fc.constant(k), colon, scalar, trailing).map((p) => p.join(''))));
  });

/** Lines of a list of offers, or of one offer, with the odd comment, blank line, marker or indentation slip. */
const yamlText = fc
  .tuple(
    fc.boolean(),
    fc.array(offerLines, { minLength: 1, maxLength: 4 }),
    mostly(
      fc.constantFrom<string[]>([], [''], ['# note'], ['  # indented note'], ['---']),
      fc.array(fc.constantFrom('', '# note', '---', '...', '  ', '- ', '-', '   extra: 1', '\t'), { maxLength: 2 }),
    ),
    fc.nat(),
    fc.constantFrom('\n', '\r\n'),
    mostly(fc.constantFrom('- ', '-   '), fc.constant('  - ')),
  )
  .map(([list, offers, odd, where, eol, dash]) => {
    const lines = list
      ? offers.flatMap((o) => o.map((p, i) => (i === 0 ? dash : ' '.repeat(dash.length)) + p))
      : [...offers[0]!];
    for (const o of odd) lines.splice(where % (lines.length + 1), 0, o);
    return lines.join(eol) + eol;
  });

describe('simple YAML files', () => {
  it('reads the common shapes, as yaml does', () => {
    const shapes = [
      '- external_id: i-1\n  title: "Skin code 1"\n  price: 500\n  type: skin\n  stock: 3\n' +
        '- external_id: i-2\n  title: B\n  price: 1.5\n',
      "---\n# items\n- external_id: i-1\n  title: 'It''s'\n\n" +
        '  # price below\n  price: "9.99"\n  active: true\n  note: ~\n',
      'external_id: one\r\ntitle: Only offer\r\nprice: 7\r\n',
      '-   external_id: wide\n    title: 🔥 Wide indent\n    price: +12\n',
    ];
    for (const text of shapes) expect(expectSameAsYaml(text), text).toBe(true);
  });

  it('leaves to yaml what is not simple', () => {
    const others = [
      '',
      '# nothing yet\n',
      'kind: item\noffers:\n  - external_id: a\n',
      '- external_id: a\n  champions: [Ahri, Lux]\n',
      '- external_id: a\n  credentials:\n    login: x\n',
      '- external_id: a\n  title: long\n    continued\n',
      '- external_id: a\n  title: x # comment\n',
      '- external_id: a\n  price: 0x1F\n',
      '- external_id: a\n  external_id: b\n',
      '- external_id: a\n---\n- external_id: b\n',
      '- external_id: &id a\n',
      '\uFEFF- external_id: a\n',
      '- external_id: a\n\ttitle: t\n',
      '- title: "esc\\"aped"\n',
    ];
    for (const text of others) expect(simpleYamlRecords(text), JSON.stringify(text)).toBeUndefined();
  });

  it(
    'wherever it answers, it answers as yaml',
    () => {
      let answered = 0;
      fc.assert(
        fc.property(yamlText, (text) => {
          if (expectSameAsYaml(text)) answered++;
        }),
        fuzzParams(1500),
      );
      // The generator reaches both sides.
      expect(answered).toBeGreaterThan(0);
    },
    fuzzTimeout(1500),
  );

  it('places a problem of a simple file as yaml does (file:line:column)', () => {
    const text = '- external_id: a\n  title: A\n  price: 1\n- external_id: b\n  title: B\n  price: lots\n';
    const fast = parseFile('yaml', text);
    const full = parseYamlFully(text);
    const problems = (p: typeof fast) =>
      p.records.flatMap((r) => normaliseRecord('item', r, 'items/x.yaml', p.locate).problems);
    expect(problems(fast)).toEqual(problems(full));
    expect(problems(fast)).toEqual([
      expect.objectContaining({ file: 'items/x.yaml', line: 6, column: 10, externalId: 'b', field: 'price' }),
    ]);
  });
});
