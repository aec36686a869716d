// What a plan costs: its requests by route, and how long they take at the rate the queue starts with (the rate
// learnt by earlier runs, the configured one, or the one the marketplace advertises). The list reads that made
// the plan are done already and not counted. A bulk batch is one request; a create looked up first is two.
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import type { Plan, PlanAction } from './plan-actions.ts';

export interface PlanCost {
  /** Requests the plan sends, every route together. */
  readonly requests: number;
  /** Requests by route ("POST /accounts"), most first. */
  readonly byRoute: readonly { readonly route: string; readonly requests: number }[];
  /** The rate they were counted at, requests/s. */
  readonly ratePerSec: number;
  /** requests / rate: the time they take at least. */
  readonly seconds: number;
}

const PATH: Record<OfferKind, string> = { account: '/accounts', item: '/items', topup: '/top-ups' };

/** The routes one action sends on, one entry per request; a bulk element names its batch's one request. */
function routesOf(a: PlanAction): string[] {
  switch (a.type) {
    case 'upload':
      return ['POST /images'];
    case 'create':
      return [...(a.verifyFirst ? [`GET ${PATH[a.kind]}/{external_id}`] : []), `POST ${PATH[a.kind]}`];
    case 'update':
      if (a.route.via === 'bulk-update') return [`POST ${PATH[a.kind]}/bulk-update#${a.route.batch}`];
      if (a.route.via === 'recreate') return [`DELETE ${PATH[a.kind]}/{id}`, `POST ${PATH[a.kind]}`];
      return [`PATCH ${PATH[a.kind]}/{id}`];
    case 'archive':
      if (a.route.via !== 'single') return [`POST ${PATH[a.kind]}/${a.route.via}#${a.route.batch}`];
      return [a.kind === 'account' ? `DELETE ${PATH[a.kind]}/{id}` : `PATCH ${PATH[a.kind]}/{id}`];
    case 'adopt':
    case 'noop':
      return [];
    default:
      return a satisfies never;
  }
}

export function planCost(plan: Pick<Plan, 'actions'>, ratePerSec: number): PlanCost {
  const batches = new Set<string>();
  const counts = new Map<string, number>();
  for (const a of plan.actions)
    for (const r of routesOf(a)) {
      const hash = r.indexOf('#');
      if (hash >= 0) {
        // One request per batch.
        if (batches.has(r)) continue;
        batches.add(r);
      }
      const route = hash >= 0 ? r.slice(0, hash) : r;
      counts.set(route, (counts.get(route) ?? 0) + 1);
    }
  const byRoute = [...counts]
    .map(([route, requests]) => ({ route, requests }))
    .sort((x, y) => y.requests - x.requests || x.route.localeCompare(y.route));
  const requests = byRoute.reduce((n, r) => n + r.requests, 0);
  return { requests, byRoute, ratePerSec, seconds: ratePerSec > 0 ? requests / ratePerSec : 0 };
}

/** "about 59 s", "about 3 min 20 s", "about 2 h 5 min": how long a person waits. */
export function aboutDuration(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `about ${s} s`;
  if (s < 3_600) return `about ${Math.floor(s / 60)} min${s % 60 > 0 ? ` ${s % 60} s` : ''}`;
  const m = Math.round(s / 60);
  return `about ${Math.floor(m / 60)} h${m % 60 > 0 ? ` ${m % 60} min` : ''}`;
}

/** "1,214 requests (1,200 POST /accounts, 14 PATCH /items/{id}), about 1 min 1 s at 20 requests/s". */
export function describeCost(c: PlanCost): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const routes = c.byRoute.map((r) => `${n(r.requests)} ${r.route}`).join(', ');
  const rate = Number(c.ratePerSec.toFixed(2));
  return (
    `${n(c.requests)} request${c.requests === 1 ? '' : 's'}${routes ? ` (${routes})` : ''}, ` +
    `${aboutDuration(c.seconds)} at ${rate} request${rate === 1 ? '' : 's'}/s`
  );
}
