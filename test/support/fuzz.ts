// Settings shared by the property (fuzz) tests. Inside `npm test` each property runs a bounded number of
// cases with a fixed seed, so a failure repeats; FUZZ_RUNS=N runs N cases per property with a random seed
// (printed by fast-check on failure, to repeat with FUZZ_SEED), for a longer search: `npm run fuzz`.
import fc from 'fast-check';

const LONG = process.env.FUZZ_RUNS !== undefined;
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : LONG ? undefined : 20260411;

/** fast-check parameters for a property with `base` cases inside npm test. */
export function fuzzParams<T>(base: number): fc.Parameters<T> {
  const numRuns = LONG ? Math.max(1, Number(process.env.FUZZ_RUNS)) : base;
  return { numRuns, ...(SEED !== undefined ? { seed: SEED } : {}) };
}

/** Vitest timeout for a property: generous, scaled with the number of cases. */
export function fuzzTimeout(base: number, msPerCase = 20): number {
  return 30_000 + fuzzParams(base).numRuns! * msPerCase;
}

/** Characters that mean something to one of the four formats, so random text hits the parsers' branches. */
const SYNTAX = [
  '{',
  '}',
  '[',
  ']',
  ':',
  ',',
  '"',
  "'",
  '\\',
  '\n',
  '\r\n',
  '\r',
  '\t',
  ' ',
  '-',
  '|',
  '.',
  '#',
  '&',
  '*',
  '!',
  '%',
  '>',
  '?',
  '@',
  '`',
  '---',
  '...',
  '\ufeff',
  '\u0000',
  '0',
  '1',
  '-1',
  '1e400',
  'true',
  'null',
  'a',
  'é',
  '😀',
  'external_id',
  'offers',
  'kind',
  'price',
  'title',
  '\\u12',
  '<<',
  // Keys that name a prototype: each parser must refuse them, never write through them.
  '__proto__',
  'constructor',
  'prototype',
  '__proto__.status',
];

/** Text made of format syntax and a few words: far likelier than uniform text to reach deep branches. */
export const syntaxText = (maxLength = 200): fc.Arbitrary<string> =>
  fc.array(fc.oneof(fc.constantFrom(...SYNTAX), fc.string({ maxLength: 4 })), { maxLength }).map((a) => a.join(''));

/** Any text, syntax-heavy or plain unicode. */
export const anyText = (): fc.Arbitrary<string> =>
  fc.oneof(
    syntaxText(),
    fc.string({ unit: 'grapheme', maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 100 }),
  );

type Mutation =
  | { op: 'delete'; at: number; len: number }
  | { op: 'insert'; at: number; text: string }
  | { op: 'duplicate'; at: number; len: number }
  | { op: 'truncate'; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), text: syntaxText(3) }),
  fc.record({ op: fc.constant('duplicate' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
);

function apply(text: string, m: Mutation): string {
  const at = text.length === 0 ? 0 : m.at % (text.length + 1);
  switch (m.op) {
    case 'delete':
      return text.slice(0, at) + text.slice(at + m.len);
    case 'insert':
      return text.slice(0, at) + m.text + text.slice(at);
    case 'duplicate':
      return text.slice(0, at + m.len) + text.slice(at, at + m.len) + text.slice(at + m.len);
    case 'truncate':
      return text.slice(0, at);
    default:
      return m satisfies never;
  }
}

/** A valid text with one to five small edits: the "almost right" files people save. */
export function mutated(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 5 }))
    .map(([text, ms]) => ms.reduce(apply, text));
}
