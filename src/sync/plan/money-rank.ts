// Money at risk when a write is late (DESIGN 31): an offer removed or sold out that stays listed can be bought,
// a stock left too high can be oversold, a price left low sells at a loss; a create only earns later, and the
// rest (a title, a description) loses nothing. Writes go in this order within a run and across runs.
import type { PlanAction } from './plan-actions.ts';

/** 'none' (adoptions and noops, state only) first: they are recorded before any write. */
export const MONEY_RANKS = ['none', 'archive', 'stock-decrease', 'price', 'create', 'rest'] as const;
export type MoneyRank = (typeof MONEY_RANKS)[number];

/** Request priorities by rank: higher goes first in the request queue. Uploads go just before creates. */
export const MONEY_PRIORITY = {
  archive: 50,
  'stock-decrease': 40,
  price: 30,
  create: 20,
  rest: 10,
  none: 0,
} as const satisfies Record<MoneyRank, number>;

const numberOr = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

export function moneyRank(a: PlanAction): MoneyRank {
  switch (a.type) {
    case 'archive':
      return 'archive';
    case 'update': {
      if (a.changes.some((c) => c.field === 'status' && c.to === 'archived')) return 'archive';
      const stock = a.changes.find((c) => c.field === 'stock');
      const from = numberOr(stock?.from);
      const to = numberOr(stock?.to);
      if (from !== undefined && to !== undefined && to < from) return 'stock-decrease';
      if (a.changes.some((c) => c.field === 'price')) return 'price';
      return 'rest';
    }
    case 'create':
    case 'upload':
      return 'create';
    case 'adopt':
    case 'noop':
      return 'none';
    default:
      return a satisfies never;
  }
}

export const moneyIndex = (a: PlanAction): number => MONEY_RANKS.indexOf(moneyRank(a));

/** An archive, a stock decrease or a price: ranked before the creates. */
export function losesMoneyWhenLate(a: PlanAction): boolean {
  const r = moneyRank(a);
  return r === 'archive' || r === 'stock-decrease' || r === 'price';
}

/**
 * The actions in the order of money at risk, after the state-only ones; equal ones keep their order (uploads stay
 * before creates).
 */
export function byMoney<T extends PlanAction>(actions: readonly T[]): T[] {
  // A bucket per rank, filled in order: stable, linear, and no object per action (plans of 100,000 offers).
  const buckets = MONEY_RANKS.map((): T[] => []);
  for (const a of actions) buckets[moneyIndex(a)]!.push(a);
  return buckets.flat();
}

/** The queue priority of an action's requests. */
export const moneyPriority = (a: PlanAction): number => MONEY_PRIORITY[moneyRank(a)];
