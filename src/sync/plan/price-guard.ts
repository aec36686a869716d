// The price guard (docs/architecture.md, Guard): a run that would sell much of the shop at a hundredth of its price
// (an export that wrote 20 for 20.00, a lost decimal comma, a shifted column) stops before its first write.
import type { OfferKind } from '../../catalogue/desired-offer.ts';

export interface PriceGuardOptions {
  /** Share of the priced offers that may change by PRICE_FACTOR or more in one run. */
  readonly maxPriceChangePercent: number;
  /** ... but never fewer offers than this. */
  readonly maxPriceChangeMin: number;
}

/** A change by this factor or more, either way, is suspect. */
export const PRICE_FACTOR = 3;

/** A planned price against the one offersync last sent (or the marketplace shows), in cents. */
export interface PriceChange {
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly from: number;
  readonly to: number;
}

export interface PriceGuardVerdict {
  readonly tripped: boolean;
  /** Offers in the run with a price to compare against. */
  readonly priced: number;
  /** Changes by PRICE_FACTOR or more, or to zero: all of them when tripped, sorted. */
  readonly suspect: readonly PriceChange[];
  /** Suspect changes allowed: max(maxPriceChangeMin, maxPriceChangePercent% of priced). */
  readonly limit: number;
  /** What stopped it: too many suspect changes (share), or a price falling to zero (zero). */
  readonly rule?: 'share' | 'zero';
  readonly message?: string;
}

export function isSuspectChange(from: number, to: number): boolean {
  // An unchanged price above zero has a ratio of 1; one at or below zero is no fall to zero.
  if (to <= 0 || from <= 0) return from > 0;
  return Math.max(from, to) / Math.min(from, to) >= PRICE_FACTOR;
}

export function priceChangeLimit(priced: number, opts: PriceGuardOptions): number {
  return Math.max(opts.maxPriceChangeMin, Math.floor((priced * opts.maxPriceChangePercent) / 100));
}

export function priceVerdict(
  changes: readonly PriceChange[],
  priced: number,
  opts: PriceGuardOptions,
  allow: boolean,
): PriceGuardVerdict {
  const suspect = changes
    .filter((c) => isSuspectChange(c.from, c.to))
    .sort((a, b) => a.kind.localeCompare(b.kind) || a.externalId.localeCompare(b.externalId));
  const limit = priceChangeLimit(priced, opts);
  const zero = suspect.filter((c) => c.to <= 0);
  const rule = zero.length > 0 ? 'zero' : suspect.length > limit ? 'share' : undefined;
  if (rule === undefined || allow) return { tripped: false, priced, suspect, limit };
  const why =
    rule === 'zero'
      ? `${zero.length} price${zero.length === 1 ? '' : 's'} would fall to zero`
      : `${suspect.length} of ${priced} priced offers would change price by a factor of ${PRICE_FACTOR} or more, ` +
        `more than the limit of ${limit} (guard.maxPriceChangePercent: ${opts.maxPriceChangePercent}%, ` +
        `at least guard.maxPriceChangeMin: ${opts.maxPriceChangeMin})`;
  return {
    tripped: true,
    priced,
    suspect,
    limit,
    rule,
    message:
      `price guard: ${why}. Nothing was sent. Check the catalogue's prices (an integer is cents: 20 is 0.20); ` +
      'if the new prices are right, run again with --allow-price-change.',
  };
}

/** 12.34 from 1234 cents, for people. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
