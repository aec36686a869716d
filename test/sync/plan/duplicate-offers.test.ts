// Which copy of a duplicated external_id is kept, which offersync archives and which it leaves: a table.
import { describe, expect, it } from 'vitest';
import { type DuplicateInput, sortDuplicate } from '../../../src/sync/plan/duplicate-offers.ts';

const copy = (id: number, status = 'listed') => ({ id, externalId: 'a-1', status }) as DuplicateInput['copies'][number];
const sorted = (copies: DuplicateInput['copies'], mappedId: number | undefined, creates: number) => {
  const d = sortDuplicate({ kind: 'account', externalId: 'a-1', copies, mappedId, creates });
  return { kept: d.kept, made: d.made.map((c) => c.id), left: d.left.map((c) => c.id) };
};

describe('sortDuplicate', () => {
  it.each([
    [
      "one create per copy: all but the mapped one are offersync's",
      [copy(1), copy(2), copy(3)],
      1,
      3,
      { kept: 1, made: [3, 2], left: [] },
    ],
    [
      "fewer creates than copies: the newest are offersync's, the rest left",
      [copy(1), copy(2), copy(3)],
      1,
      2,
      { kept: 1, made: [3], left: [2] },
    ],
    ['no create in the journal (made by hand): all left', [copy(1), copy(2)], 1, 0, { kept: 1, made: [], left: [2] }],
    ['mapped to none of them: none touched', [copy(1), copy(2)], 9, 5, { kept: null, made: [], left: [1, 2] }],
    ['not mapped at all: none touched', [copy(1), copy(2)], undefined, 5, { kept: null, made: [], left: [1, 2] }],
    [
      "a sold copy is the marketplace's: left",
      [copy(1), copy(2, 'sold'), copy(3)],
      1,
      3,
      { kept: 1, made: [3], left: [2] },
    ],
    [
      'archived copies are over: neither made nor left',
      [copy(1), copy(2, 'archived')],
      1,
      2,
      { kept: 1, made: [], left: [] },
    ],
  ] as const)('%s', (_, copies, mappedId, creates, want) => {
    expect(sorted(copies, mappedId, creates)).toEqual(want);
  });
});
