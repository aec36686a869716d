import { describe, expect, it } from 'vitest';
import { byMoney, losesMoneyWhenLate, type MoneyRank, moneyRank } from '../../../src/sync/plan/money-rank.ts';
import type { PlanAction } from '../../../src/sync/plan/plan-actions.ts';
import type { FieldChange } from '../../../src/sync/fields/field-change.ts';
import { desiredItem, imageRef } from '../../support/offers.ts';
import { archiveAction, createAction, noopAction, updateAction } from '../../support/plan-actions.ts';

const item = desiredItem('i-1');
const change = (field: FieldChange['field'], from: unknown, to: FieldChange['to']): FieldChange => ({
  field,
  from,
  to,
  why: 'changed',
});
const update = (...changes: FieldChange[]) => updateAction(item, 7, undefined, { changes });

describe('moneyRank', () => {
  const table: [string, PlanAction, MoneyRank][] = [
    ['an archive', archiveAction('item', 'gone', 9), 'archive'],
    ['an update to status archived (a sold-out item)', update(change('status', 'listed', 'archived')), 'archive'],
    ['a stock decrease', update(change('stock', 10, 2)), 'stock-decrease'],
    ['a stock decrease beside a price', update(change('price', 100, 90), change('stock', 10, 2)), 'stock-decrease'],
    [
      'a stock increase with a price: the price ranks it',
      update(change('stock', 2, 10), change('price', 1, 2)),
      'price',
    ],
    ['a price', update(change('price', 100, 250)), 'price'],
    ['a create', createAction(item), 'create'],
    ['an upload, with the creates that need it', { type: 'upload', image: imageRef('a.png'), neededBy: [] }, 'create'],
    ['a title', update(change('title', 'a', 'b')), 'rest'],
    ['a stock increase alone', update(change('stock', 2, 10)), 'rest'],
    ['a noop', noopAction('unchanged'), 'none'],
  ];
  it.each(table)('%s', (_name, action, rank) => {
    expect(moneyRank(action)).toBe(rank);
    expect(losesMoneyWhenLate(action)).toBe(rank === 'archive' || rank === 'stock-decrease' || rank === 'price');
  });
});

describe('byMoney', () => {
  it('orders archives, stock decreases, prices, creates, the rest; noops first; equal ones keep their order', () => {
    const actions: PlanAction[] = [
      update(change('title', 'a', 'b')),
      createAction(desiredItem('new-1')),
      update(change('price', 1, 2)),
      noopAction('unchanged'),
      createAction(desiredItem('new-2')),
      update(change('stock', 5, 1)),
      archiveAction('item', 'gone', 9),
    ];
    const names = byMoney(actions).map((a) => (a.type === 'create' ? `create:${a.externalId}` : moneyRank(a)));
    expect(names).toEqual(['none', 'archive', 'stock-decrease', 'price', 'create:new-1', 'create:new-2', 'rest']);
  });
});
