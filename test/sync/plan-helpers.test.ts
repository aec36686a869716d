// Reading a plan: which actions write, whether it has anything to do (an adopt writes state), and the line a
// targeted run prints.
import { describe, expect, it } from 'vitest';
import type { PlanAction } from '../../src/sync/plan/plan-actions.ts';
import { hasChanges, isWrite, targetNote } from '../../src/sync/plan/plan-actions.ts';
import { emptyKindSnapshot } from '../../src/sync/plan/remote-snapshot.ts';
import { fieldNames } from '../../src/sync/fields/offer-fields.ts';
import { noopAction, planOf } from '../support/plan-actions.ts';

const noop = noopAction('unchanged', { externalId: 'a' });
const of = (type: string) => ({ type }) as unknown as PlanAction;

describe('plan helpers', () => {
  it('counts create, update, archive and upload as writes, not adopt or noop', () => {
    expect(['create', 'update', 'archive', 'upload', 'adopt', 'noop'].map((t) => isWrite(of(t)))).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('has changes when any action writes to the marketplace; an adoption only maps an offer that matches', () => {
    expect(hasChanges(planOf([]))).toBe(false);
    expect(hasChanges(planOf([noop, noop]))).toBe(false);
    expect(hasChanges(planOf([noop, of('adopt')]))).toBe(false);
    expect(hasChanges(planOf([of('adopt'), of('update')]))).toBe(true);
    expect(hasChanges(planOf([of('archive'), noop]))).toBe(true);
  });

  it('says how many offers a targeted run left outside it', () => {
    expect(targetNote(planOf([]))).toBeUndefined();
    expect(targetNote(planOf([], { target: { kinds: ['item'], description: '--only item', outside: 1 } }))).toBe(
      'targeted run (--only item): 1 offer outside the target left as they are; nothing outside it is archived',
    );
    expect(targetNote(planOf([], { target: { match: 'a*', description: "--match 'a*'", outside: 0 } }))).toBe(
      "targeted run (--match 'a*'): 0 offers outside the target left as they are; nothing outside it is archived",
    );
  });
});

describe('small shapes', () => {
  it('an empty kind snapshot is complete, full unless said otherwise, with no offers or duplicates', () => {
    expect(emptyKindSnapshot()).toEqual({ offers: new Map(), full: true, complete: true, duplicates: [] });
    expect(emptyKindSnapshot(false).full).toBe(false);
  });

  it('lists the field names an offer states, sorted', () => {
    expect(fieldNames({ title: 'T', price: 1, game: 'g' })).toEqual(['game', 'price', 'title']);
  });
});
