import { describe, expect, it } from 'vitest';
import { aboutDuration, describeCost, planCost } from '../../../src/sync/plan/plan-cost.ts';
import { desiredAccount, desiredItem, imageRef } from '../../support/offers.ts';
import { archiveAction, createAction, noopAction, planOf, updateAction } from '../../support/plan-actions.ts';

describe('planCost', () => {
  it('counts requests by route: a bulk batch once, a create looked up first twice, nothing for noops', () => {
    const bulk = (batch: number) => ({ via: 'bulk-update', batch, ifRefused: 'patch' }) as const;
    const plan = planOf([
      { type: 'upload', image: imageRef('a'), neededBy: ['a-1'] },
      createAction(desiredAccount('a-1')),
      createAction(desiredAccount('a-2'), { verifyFirst: true }),
      updateAction(desiredItem('i-1'), 1),
      updateAction(desiredItem('i-2'), 2, bulk(0)),
      updateAction(desiredItem('i-3'), 3, bulk(0)),
      updateAction(desiredItem('i-4'), 4, bulk(1)),
      updateAction(desiredAccount('a-3'), 5, { via: 'recreate', ifRefused: 'report' }),
      archiveAction('account', 'a-4', 6),
      archiveAction('item', 'i-5', 7),
      archiveAction('account', 'a-5', 8, { via: 'bulk-remove', batch: 0, ifRefused: 'single' }),
      archiveAction('account', 'a-6', 9, { via: 'bulk-remove', batch: 0, ifRefused: 'single' }),
      noopAction('unchanged'),
    ]);
    const c = planCost(plan, 20);
    expect(Object.fromEntries(c.byRoute.map((r) => [r.route, r.requests]))).toEqual({
      'POST /images': 1,
      'POST /accounts': 3,
      'GET /accounts/{external_id}': 1,
      'PATCH /items/{id}': 2,
      'POST /items/bulk-update': 2,
      'DELETE /accounts/{id}': 2,
      'POST /accounts/bulk-remove': 1,
    });
    expect(c.requests).toBe(12);
    expect(c.seconds).toBeCloseTo(0.6);
    expect(c.byRoute[0]).toEqual({ route: 'POST /accounts', requests: 3 });
  });

  it('tells the cost as a person reads it', () => {
    const plan = planOf(Array.from({ length: 1_180 }, (_, i) => createAction(desiredAccount(`a-${i}`))));
    expect(describeCost(planCost(plan, 20))).toBe('1,180 requests (1,180 POST /accounts), about 59 s at 20 requests/s');
    expect(aboutDuration(200)).toBe('about 3 min 20 s');
    expect(aboutDuration(120)).toBe('about 2 min');
    expect(aboutDuration(7_500)).toBe('about 2 h 5 min');
    expect(describeCost(planCost(planOf([]), 1))).toBe('0 requests, about 0 s at 1 request/s');
  });
});
