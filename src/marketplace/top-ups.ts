// Top-up offers: the shared offer calls, plus POST /top-ups/bulk-update {offers}.
import { decodeBulkUpdate } from './bulk-outcomes.ts';
import { decodeResponse } from './decode.ts';
import type { BulkUpdateResult, CallOptions, TopUpResource } from './marketplace-client.ts';
import { HttpOfferResource } from './offer-resource.ts';
import { callOf, type ResourceContext } from './resource-context.ts';

export class HttpTopUpResource extends HttpOfferResource implements TopUpResource {
  constructor(ctx: ResourceContext) {
    super(ctx, 'top-ups');
  }

  async bulkUpdate(
    offers: readonly Readonly<Record<string, unknown>>[],
    opts?: CallOptions,
  ): Promise<BulkUpdateResult> {
    if (offers.length === 0) return { body: undefined };
    // The same updates sent twice leave the same offers: safe to retry.
    const res = await this.ctx.transport.send({
      method: 'POST',
      path: '/top-ups/bulk-update',
      json: { offers },
      idempotent: true,
      answer: 'list',
      ...callOf(opts),
    });
    return decodeResponse(res, decodeBulkUpdate);
  }
}
