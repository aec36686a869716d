// What the three kinds of offer share: create, get, update, archive (DELETE), list, findByExternalId.
// accounts.ts, items.ts and top-ups.ts build on it. Writes carry the marketplace id: an external_id is looked up
// first.
import { decodeArchive } from './archive-answer.ts';
import { decodeBulkAnswer } from './bulk-outcomes.ts';
import { decodeOffer, decodeResponse, unwrapSingle } from './decode.ts';
import { NotFoundError } from './marketplace-errors.ts';
import { findByExternalId } from './find-by-external-id.ts';
import { collectionPath, isById, offerPathById } from './identifiers.ts';
import type {
  BulkOp,
  BulkUpdateResult,
  CallOptions,
  Identifier,
  ListOptions,
  ListPage,
  OfferResource,
  RemoteOffer,
  ResourceKind,
} from './marketplace-client.ts';
import { walkPages } from './pagination.ts';
import { callOf, type ResourceContext } from './resource-context.ts';

export class HttpOfferResource implements OfferResource {
  constructor(
    protected readonly ctx: ResourceContext,
    readonly kind: ResourceKind,
  ) {}

  protected decodeOne = (body: unknown): RemoteOffer =>
    decodeOffer(this.kind, unwrapSingle(body), false, this.ctx.decode);

  async create(body: Readonly<Record<string, unknown>>, opts?: CallOptions): Promise<RemoteOffer> {
    // Not idempotent: a blind retry after an unknown outcome could list the offer twice (docs/architecture.md,
    // Journal).
    const res = await this.ctx.transport.send({
      method: 'POST',
      path: collectionPath(this.kind),
      json: body,
      idempotent: false,
      ...callOf(opts),
    });
    return decodeResponse(res, this.decodeOne);
  }

  async get(identifier: Identifier, opts?: CallOptions): Promise<RemoteOffer> {
    if (!isById(identifier)) return this.requireByExternalId(identifier.externalId, opts);
    const res = await this.ctx.transport.send({
      method: 'GET',
      path: offerPathById(this.kind, identifier.id),
      idempotent: true,
      ...callOf(opts),
    });
    return decodeResponse(res, this.decodeOne);
  }

  async update(
    identifier: Identifier,
    body: Readonly<Record<string, unknown>>,
    opts?: CallOptions,
  ): Promise<RemoteOffer> {
    const id = await this.idOf(identifier, opts);
    const res = await this.ctx.transport.send({
      method: 'PATCH',
      path: offerPathById(this.kind, id),
      json: body,
      idempotent: true,
      ...callOf(opts),
    });
    return decodeResponse(res, this.decodeOne);
  }

  async archive(identifier: Identifier, opts?: CallOptions): Promise<{ readonly archived: boolean }> {
    const id = await this.idOf(identifier, opts);
    const res = await this.ctx.transport.send({
      method: 'DELETE',
      path: offerPathById(this.kind, id),
      idempotent: true, // archiving twice archives once
      ...callOf(opts),
    });
    return decodeResponse(res, decodeArchive);
  }

  list(opts: ListOptions = {}): AsyncIterable<ListPage<RemoteOffer>> {
    const perPage = opts.perPage ?? this.ctx.list.perPage;
    const params = new URLSearchParams();
    if (opts.sort !== undefined) params.set(this.ctx.list.sortParam, opts.sort);
    params.set(this.ctx.list.perPageParam, String(perPage));
    return walkPages<RemoteOffer>({
      transport: this.ctx.transport,
      path: collectionPath(this.kind),
      params,
      pageParam: this.ctx.list.pageParam,
      numberFirstPage: true,
      perPage,
      maxPages: this.ctx.list.maxPages,
      // An offer made by hand on the website may have no external_id: offersync cannot manage it, so skip it.
      decode: (raw) => decodeOffer(this.kind, unwrapSingle(raw), true, this.ctx.decode),
      idOf: (o) => o.id,
      ...callOf(opts.signal ? { signal: opts.signal } : undefined),
    });
  }

  async bulk(op: BulkOp, key: string, elements: readonly unknown[], opts?: CallOptions): Promise<BulkUpdateResult> {
    if (elements.length === 0) return { body: undefined };
    // The same updates or archives sent twice leave the same offers: safe to retry.
    const res = await this.ctx.transport.send({
      method: 'POST',
      path: `${collectionPath(this.kind)}/${op}`,
      json: { [key]: elements },
      idempotent: true,
      answer: 'list',
      ...callOf(opts),
    });
    return decodeResponse(res, (body) => decodeBulkAnswer(this.kind, body));
  }

  findByExternalId(externalId: string, opts?: CallOptions): Promise<RemoteOffer | null> {
    return findByExternalId(this.ctx, this.kind, externalId, opts);
  }

  /** The marketplace id of an identifier, looked up for an external_id (docs/architecture.md, Identity). */
  protected async idOf(identifier: Identifier, opts?: CallOptions): Promise<number> {
    return isById(identifier) ? identifier.id : (await this.requireByExternalId(identifier.externalId, opts)).id;
  }

  private async requireByExternalId(externalId: string, opts?: CallOptions): Promise<RemoteOffer> {
    const found = await this.findByExternalId(externalId, opts);
    if (found) return found;
    throw new NotFoundError(
      { method: 'GET', path: this.ctx.transport.fullPath(collectionPath(this.kind)), status: 404 },
      `no ${this.kind} offer with external_id ${JSON.stringify(externalId)}`,
    );
  }
}
