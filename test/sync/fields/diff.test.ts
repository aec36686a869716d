// The three-way diff as a table: desired against last applied against live (docs/architecture.md).
import { describe, expect, it } from 'vitest';
import { type DiffInput, diffFields, liveFieldsOf } from '../../../src/sync/fields/diff.ts';

const none = new Set<string>();

describe('three-way diff', () => {
  it.each<[string, DiffInput, ReturnType<typeof diffFields>]>([
    [
      'never sent, not echoed: unsent',
      { desired: { price: 5 }, lastApplied: null, live: {}, lossy: none },
      [{ field: 'price', from: undefined, to: 5, why: 'unsent' }],
    ],
    [
      'not echoed, last applied differs: changed',
      { desired: { price: 5 }, lastApplied: { price: 4 }, live: {}, lossy: none },
      [{ field: 'price', from: 4, to: 5, why: 'changed' }],
    ],
    [
      'not echoed, last applied equal: nothing',
      { desired: { price: 5 }, lastApplied: { price: 5 }, live: {}, lossy: none },
      [],
    ],
    [
      'not echoed, never applied this field: unsent',
      { desired: { price: 5 }, lastApplied: { title: 'x' }, live: {}, lossy: none },
      [{ field: 'price', from: undefined, to: 5, why: 'unsent' }],
    ],
    [
      'echoed as undefined counts as not echoed',
      { desired: { price: 5 }, lastApplied: { price: 4 }, live: { price: undefined }, lossy: none },
      [{ field: 'price', from: 4, to: 5, why: 'changed' }],
    ],
    [
      'echoed, edited on the website: drift',
      { desired: { price: 5 }, lastApplied: { price: 5 }, live: { price: 4 }, lossy: none },
      [{ field: 'price', from: 4, to: 5, why: 'drift' }],
    ],
    [
      'echoed, catalogue changed: changed',
      { desired: { price: 5 }, lastApplied: { price: 3 }, live: { price: 4 }, lossy: none },
      [{ field: 'price', from: 4, to: 5, why: 'changed' }],
    ],
    [
      'echoed, never applied: changed',
      { desired: { price: 5 }, lastApplied: null, live: { price: 4 }, lossy: none },
      [{ field: 'price', from: 4, to: 5, why: 'changed' }],
    ],
    ['echoed and equal: nothing', { desired: { price: 5 }, lastApplied: null, live: { price: 5 }, lossy: none }, []],
    [
      'lossy: compared with last applied only',
      { desired: { price: 5 }, lastApplied: { price: 5 }, live: { price: 4 }, lossy: new Set(['price']) },
      [],
    ],
    [
      'an undefined desired field is not managed',
      { desired: { price: 5, title: undefined }, lastApplied: null, live: { price: 5, title: 'x' }, lossy: none },
      [],
    ],
  ])('%s', (_name, input, changes) => {
    expect(diffFields(input)).toEqual(changes);
  });

  it('sees the live status as a field, and only when the marketplace gave one', () => {
    expect(liveFieldsOf({ id: 1, externalId: 'a', status: 'sold', fields: { price: 5 } })).toEqual({
      price: 5,
      status: 'sold',
    });
    expect(liveFieldsOf({ id: 1, externalId: 'a', fields: { price: 5 } })).toStrictEqual({ price: 5 });
  });
});
