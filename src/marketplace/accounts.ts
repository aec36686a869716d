// Account offers: the shared offer calls (archive by DELETE among them), plus bulk-remove. PATCH /accounts/{id} is
// served by the marketplace though the document does not list it; the executor probes it (docs/architecture.md,
// Capabilities).
import { DecodeError, decodeInteger, decodeResponse, isRecord } from './decode.ts';
import type { AccountResource, BulkRemoveResult, CallOptions } from './marketplace-client.ts';
import { HttpOfferResource } from './offer-resource.ts';
import { callOf, type ResourceContext } from './resource-context.ts';

export function decodeBulkRemove(body: unknown): BulkRemoveResult {
  if (!isRecord(body)) throw new DecodeError('bulk-remove answer is not a JSON object');
  // The real server answers {message, data: {archived_count, already_sold_count, not_found_count, ...}}.
  const counts = isRecord(body.data) ? body.data : body;
  const processed = decodeInteger(body.processed);
  const removed = decodeInteger(counts.removed) ?? decodeInteger(counts.archived_count);
  const notFound = decodeInteger(counts.not_found) ?? decodeInteger(counts.not_found_count);
  return {
    // Undocumented absence of `success` on a 2xx: the status already said so.
    success: typeof body.success === 'boolean' ? body.success : true,
    ...(processed !== undefined ? { processed } : {}),
    ...(removed !== undefined ? { removed } : {}),
    ...(notFound !== undefined ? { notFound } : {}),
  };
}

export class HttpAccountResource extends HttpOfferResource implements AccountResource {
  constructor(ctx: ResourceContext) {
    super(ctx, 'accounts');
  }

  async bulkRemove(
    req: { readonly externalIds?: readonly string[]; readonly ids?: readonly number[] },
    opts?: CallOptions,
  ): Promise<BulkRemoveResult> {
    // Whether both arrays are required is not documented: send the ones that say something.
    const body: Record<string, unknown> = {};
    if (req.externalIds && req.externalIds.length > 0) body.external_ids = [...req.externalIds];
    if (req.ids && req.ids.length > 0) body.ids = [...req.ids];
    if (Object.keys(body).length === 0) return { success: true, processed: 0, removed: 0, notFound: 0 };
    // Archiving twice archives once: safe to retry.
    const res = await this.ctx.transport.send({
      method: 'POST',
      path: '/accounts/bulk-remove',
      json: body,
      idempotent: true,
      answer: 'list',
      ...callOf(opts),
    });
    return decodeResponse(res, decodeBulkRemove);
  }
}
