// Value equality that ignores key order (the planner's diff rests on it) and the canonical text that hashes
// and displays a value the same whatever its key order.
import { describe, expect, it } from 'vitest';
import { canonicalJson, sameValue } from '../../../src/sync/fields/canonical-json.ts';

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined ones', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: null }], c: undefined } })).toBe(
      '{"a":{"d":[2,{"y":null,"z":1}]},"b":1}',
    );
  });

  it('writes scalars as JSON does, and undefined as a word', () => {
    expect([null, 'x', 3.5, true, undefined].map(canonicalJson)).toEqual(['null', '"x"', '3.5', 'true', 'undefined']);
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson({})).toBe('{}');
  });
});

describe('sameValue', () => {
  it.each([
    ['the same scalar', 5, 5],
    ['objects in another key order', { a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }],
    ['an undefined key and a missing one', { a: 1, b: undefined }, { a: 1 }],
    ['a missing key and an undefined one', { a: 1 }, { a: 1, b: undefined }],
    ['empty arrays', [], []],
    ['empty objects', {}, {}],
  ])('equal: %s', (_name, a, b) => {
    expect(sameValue(a, b)).toBe(true);
  });

  it.each([
    ['different scalars', 1, 2],
    ['a number and its text', 1, '1'],
    ['null and an object', null, {}],
    ['an object and null', {}, null],
    ['an array and an object', [], {}],
    ['an object and an array', {}, []],
    ['arrays of other lengths', [1, 2], [1, 2, 3]],
    ['arrays in another order', [1, 2], [2, 1]],
    ['a nested difference', { a: { b: [1, 2] } }, { a: { b: [1, 3] } }],
    ['a key only on the left', { a: 1, b: 2 }, { a: 1 }],
    ['a key only on the right', { a: 1 }, { a: 1, b: 2 }],
    ['a key with a value and an undefined one', { a: 1, b: 2 }, { a: 1, b: undefined }],
    ['the same count of other keys', { a: 1 }, { b: 1 }],
    ['a number and an empty object', 1, {}],
    ['an empty object and a number', {}, 1],
    ['a text and an empty object', 'ab', {}],
  ])('different: %s', (_name, a, b) => {
    expect(sameValue(a, b)).toBe(false);
  });
});
