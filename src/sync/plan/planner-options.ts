// What the planner is told besides the three pictures: the seller's policies and what the marketplace is
// known to serve.
import type { Capabilities } from '../../capabilities/verdicts.ts';
import type { GuardOptions } from './guards.ts';
import type { OfferBackoff } from './offer-backoff.ts';
import type { PriceGuardOptions } from './price-guard.ts';

export interface PlannerOptions {
  /** Status stated on create (and expected after) when the catalogue gives none. */
  readonly defaultStatus: string;
  readonly prune: 'managed' | 'all' | 'none';
  readonly ownedPattern: RegExp | null;
  readonly drift: 'local-wins' | 'report';
  readonly updateFallback: 'report' | 'recreate';
  readonly guard: GuardOptions;
  readonly allowMassArchive: boolean;
  readonly priceGuard: PriceGuardOptions;
  /** --allow-price-change: the price guard reports but does not stop. */
  readonly allowPriceChange: boolean;
  /** Largest batch of one bulk call, per route (a smaller limit the marketplace names is learnt at send). */
  readonly bulk: { readonly removeSize: number; readonly topUpUpdateSize: number; readonly itemUpdateSize: number };
  /** What the state db learnt of the routes the document does not promise. */
  readonly capabilities: Capabilities;
  /** Offers the marketplace refused, held back until their entry changes or their backoff elapses. */
  readonly backoffs?: ReadonlyMap<string, OfferBackoff>;
  /** Epoch ms the plan is made at, for the backoffs. Default 0 (every backoff has elapsed). */
  readonly now?: number;
}
