// Top-up offers: the shared offer calls, plus POST /top-ups/bulk-update {offers}, the documented body.
import type { BulkUpdateResult, CallOptions, TopUpResource } from './marketplace-client.ts';
import { HttpOfferResource } from './offer-resource.ts';
import type { ResourceContext } from './resource-context.ts';

export class HttpTopUpResource extends HttpOfferResource implements TopUpResource {
  constructor(ctx: ResourceContext) {
    super(ctx, 'top-ups');
  }

  bulkUpdate(offers: readonly Readonly<Record<string, unknown>>[], opts?: CallOptions): Promise<BulkUpdateResult> {
    return this.bulk('bulk-update', 'offers', offers, opts);
  }
}
