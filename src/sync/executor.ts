// The executor: runs a Plan through the client (whose every request goes through the rate-aware queue),
// journals each write before it is sent, and records every outcome in the state db.
import { readFile } from 'node:fs/promises';
import type { DesiredOffer, OfferKind } from '../catalogue/desired-offer.ts';
import type { Logger } from '../log/logger.ts';
import type { MarketplaceClient, RemoteOffer } from '../marketplace/marketplace-client.ts';
import type { JournalEntry, JournalOp } from '../state/records.ts';
import type { StateStore } from '../state/state-store.ts';
import { AccountUpdates } from './account-update.ts';
import { archiveAll } from './archive-batch.ts';
import { errorMessage, isOutcomeUnknown, statusOf } from './errors.ts';
import { lossyFields } from './lossy.ts';
import type { AdoptAction, CreateAction, NoopAction, Plan, UpdateAction, UploadAction } from './plan.ts';
import { EXECUTOR_WINDOW, forEachLimit } from './for-each-limit.ts';
import { effectiveFields, isLocked, ITEM_UPDATE_FIELDS } from './planner.ts';
import { diffFields, liveFieldsOf } from './diff.ts';
import { resourceOf } from './read-snapshot.ts';
import type { OfferOutcome } from './run-report.ts';
import { appendSold, type SoldEntry } from './sold-log.ts';
import { updateTopUpsInBulk } from './topup-bulk.ts';

/** Higher runs first: uploads before the creates that need them, archives last. */
export const PRIORITY = { upload: 30, create: 20, update: 10, archive: 0 } as const;

export interface ExecutorOptions {
  readonly bulkRemoveSize: number;
  readonly topUpBulkSize: number;
  readonly updateFallback: 'report' | 'recreate';
  readonly defaultStatus: string;
  /** Creates re-tried after a lookup proved the previous attempt did not land. */
  readonly createAttempts: number;
}

export interface ExecutorDeps {
  readonly client: MarketplaceClient;
  readonly store: StateStore;
  readonly logger: Logger;
  readonly runId: string;
  readonly statePath: string;
  readonly options: ExecutorOptions;
  readonly onProgress?: (done: number, total: number) => void;
  readonly readImage?: (absPath: string) => Promise<Uint8Array>;
  /** Aborted (a signal, a lost lease): no further write is started; those in flight finish. */
  readonly signal?: AbortSignal;
}

/** One executor run; its methods share the run's journal, outcomes and progress. */
export class Execution {
  readonly outcomes: OfferOutcome[] = [];
  private done = 0;
  private total = 0;
  private readonly sold: SoldEntry[] = [];
  private readonly accountUpdates = new AccountUpdates(this);

  constructor(private readonly deps: ExecutorDeps) {}

  async run(plan: Plan): Promise<OfferOutcome[]> {
    const { logger } = this.deps;
    if (plan.guard.tripped) {
      logger.error(
        { archives: plan.guard.archives, limit: plan.guard.limit },
        'mass-archive guard tripped: nothing sent',
      );
      return this.outcomes;
    }
    const uploads = plan.actions.filter((a): a is UploadAction => a.type === 'upload');
    const perKey = new Map<string, { adopt?: AdoptAction; create?: CreateAction; update?: UpdateAction }>();
    const noops: NoopAction[] = [];
    const archives = plan.actions.filter((a) => a.type === 'archive');
    for (const a of plan.actions) {
      if (a.type === 'noop') noops.push(a);
      if (a.type !== 'adopt' && a.type !== 'create' && a.type !== 'update') continue;
      const key = `${a.kind}:${a.externalId}`;
      const entry = perKey.get(key) ?? {};
      if (a.type === 'adopt') entry.adopt = a;
      else if (a.type === 'create') entry.create = a;
      else entry.update = a;
      perKey.set(key, entry);
    }
    this.total = uploads.length + perKey.size + archives.length;

    this.recordNoops(noops);
    const failedUploads = await this.uploadAll(uploads);

    // Top-up updates travel in bulk; everything else one offer at a time.
    const bulkTopUps: UpdateAction[] = [];
    const singles: (() => Promise<void>)[] = [];
    this.store.transaction(() => {
      for (const entry of perKey.values()) if (entry.adopt) this.adopt(entry.adopt, !entry.update);
    });
    for (const entry of perKey.values()) {
      const { create, update } = entry;
      if (create) singles.push(() => this.create(create, failedUploads));
      else if (update?.kind === 'topup') bulkTopUps.push(update);
      else if (update) singles.push(() => this.update(update, failedUploads));
    }
    if (bulkTopUps.length > 0) singles.push(() => updateTopUpsInBulk(this, bulkTopUps));
    await forEachLimit(singles, EXECUTOR_WINDOW, (task) => task(), this.deps.signal);
    // Archives go last. They are not skipped when another offer failed: a removed offer left listed can be
    // sold twice, and the listing's completeness is already checked by the planner.
    if (!this.deps.signal?.aborted) await archiveAll(this, archives);
    appendSold(this.deps.statePath, this.sold);
    return this.outcomes;
  }

  // --- shared by the batch helpers -------------------------------------------------------------------

  get client(): MarketplaceClient {
    return this.deps.client;
  }
  get store(): StateStore {
    return this.deps.store;
  }
  get options(): ExecutorOptions {
    return this.deps.options;
  }
  get logger(): Logger {
    return this.deps.logger;
  }

  report(o: OfferOutcome, counts = true): void {
    this.outcomes.push(o);
    if (counts) {
      this.done++;
      this.deps.onProgress?.(this.done, this.total);
    }
    if (o.outcome === 'failed')
      this.deps.logger.warn({ kind: o.kind, externalId: o.externalId, file: o.file, err: o.message }, 'offer failed');
  }

  /** Journals a write, runs it, and settles the journal entry whatever happens. */
  async journaled<T>(
    op: JournalOp,
    kind: OfferKind | 'image',
    keys: readonly string[],
    send: (entry: JournalEntry) => Promise<T>,
  ): Promise<T> {
    this.deps.signal?.throwIfAborted();
    const entry = this.store.journalBegin({ runId: this.deps.runId, op, kind, keys });
    this.store.journalSet(entry.id, 'sent');
    try {
      const out = await send(entry);
      this.store.journalSet(entry.id, 'done');
      return out;
    } catch (err) {
      // An unknown outcome stays "sent": the next start settles it by reading the remote.
      if (!isOutcomeUnknown(err)) this.store.journalSet(entry.id, 'failed', errorMessage(err));
      throw err;
    }
  }

  /** Records a successful write's result: the mapping, what was sent, and fields the server stores differently. */
  applied(
    d: DesiredOffer,
    remote: RemoteOffer,
    sent: Readonly<Record<string, unknown>>,
    full: Readonly<Record<string, unknown>>,
  ): void {
    const prev = this.store.getOffer(d.kind, d.externalId);
    const base = prev && prev.remoteId === remote.id ? prev.lastApplied : null;
    const lastApplied: Record<string, unknown> = {};
    for (const [f, v] of Object.entries(full)) {
      if (f in sent) lastApplied[f] = sent[f];
      else if (base && f in base) lastApplied[f] = base[f];
      else lastApplied[f] = v; // not sent and never applied: it matched the live value
    }
    this.store.upsertOffer(d.kind, d.externalId, {
      remoteId: remote.id,
      lastApplied,
      credentialsHmac: d.kind === 'account' ? (d.credentialsHmac ?? null) : null,
      imageHashes: d.kind === 'account' ? d.images.map((i) => i.sha256) : [],
      contentHash: d.hash,
      remoteStatus: remote.status ?? (typeof sent.status === 'string' ? sent.status : null),
      remoteUpdatedAt: remote.updatedAt ?? null,
      managed: true,
      sourceFile: d.source.file,
      lossyFields: lossyFields(sent, remote, prev && prev.remoteId === remote.id ? prev.lossyFields : []),
    });
  }

  fieldsToSend(d: DesiredOffer): { fields: Record<string, unknown>; missingImages: boolean } {
    const uploaded = new Map<string, number>();
    if (d.kind === 'account')
      for (const img of d.images) {
        const rec = this.store.getImage(img.sha256);
        if (rec) uploaded.set(img.sha256, rec.remoteId);
      }
    const { fields, imagesResolved } = effectiveFields(d, this.options.defaultStatus, uploaded);
    return { fields, missingImages: !imagesResolved };
  }

  lockedBy(remote: RemoteOffer | null | undefined): string | null {
    return isLocked(remote?.status) ? remote!.status! : null;
  }

  markLocked(kind: OfferKind, externalId: string, remote: RemoteOffer): void {
    const prev = this.store.getOffer(kind, externalId);
    if (prev?.remoteStatus !== remote.status && remote.status) {
      this.sold.push({
        kind,
        external_id: externalId,
        id: remote.id,
        status: remote.status,
        sold_at: remote.soldAt ? new Date(remote.soldAt).toISOString() : null,
        seen_at: new Date().toISOString(),
      });
    }
    this.store.upsertOffer(kind, externalId, { remoteId: remote.id, remoteStatus: remote.status ?? null });
  }

  // --- the phases --------------------------------------------------------------------------------------

  private recordNoops(noops: readonly NoopAction[]): void {
    this.store.transaction(() => {
      for (const n of noops) {
        switch (n.reason) {
          case 'sold':
          case 'refunded':
          case 'processing':
            if (n.remoteId !== undefined)
              this.markLocked(n.kind, n.externalId, {
                id: n.remoteId,
                externalId: n.externalId,
                status: n.reason,
                fields: {},
              });
            this.report({ kind: n.kind, externalId: n.externalId, outcome: 'sold', message: n.detail }, false);
            break;
          case 'gone':
            this.store.deleteOffer(n.kind, n.externalId);
            this.report({ kind: n.kind, externalId: n.externalId, outcome: 'skipped', message: n.detail }, false);
            break;
          case 'unchanged':
            this.report({ kind: n.kind, externalId: n.externalId, outcome: 'unchanged' }, false);
            break;
          case 'blocked':
            this.report(
              {
                kind: n.kind,
                externalId: n.externalId,
                outcome: 'blocked',
                message: n.detail,
                fields: n.changes?.map((c) => c.field),
              },
              false,
            );
            break;
          case 'drift-reported':
            // The seller chose to be told, not to have it patched back: reported, not a failure.
            this.report(
              {
                kind: n.kind,
                externalId: n.externalId,
                outcome: 'skipped',
                message: n.detail,
                fields: n.changes?.map((c) => c.field),
              },
              false,
            );
            break;
          case 'unmanaged':
          case 'archived':
            break;
          default:
            this.report(
              { kind: n.kind, externalId: n.externalId, outcome: 'skipped', message: n.detail ?? n.reason },
              false,
            );
        }
      }
    });
  }

  /** Uploads each new image once per sha256; returns the hashes that failed. */
  private async uploadAll(uploads: readonly UploadAction[]): Promise<Set<string>> {
    const failed = new Set<string>();
    const read = this.deps.readImage ?? ((p: string) => readFile(p));
    await forEachLimit(
      uploads,
      EXECUTOR_WINDOW,
      async (u) => {
        const key = u.image.path;
        try {
          if (this.store.getImage(u.image.sha256))
            return this.report({ kind: 'image', externalId: key, outcome: 'unchanged' });
          const data = await read(u.image.absPath);
          const name = u.image.path.split('/').pop() ?? 'image';
          const img = await this.journaled('upload', 'image', [u.image.sha256], () =>
            this.client.images.upload(
              { data, filename: name, mimeType: u.image.mimeType },
              { priority: PRIORITY.upload },
            ),
          );
          this.store.putImage({
            sha256: u.image.sha256,
            remoteId: img.id,
            url: img.url ?? null,
            uploadedAt: Date.now(),
          });
          this.report({ kind: 'image', externalId: key, outcome: 'uploaded' });
        } catch (err) {
          failed.add(u.image.sha256);
          this.report({
            kind: 'image',
            externalId: key,
            outcome: 'failed',
            file: key,
            message: `upload failed: ${errorMessage(err)}; needed by ${u.neededBy.join(', ')}`,
          });
        }
      },
      this.deps.signal,
    );
    return failed;
  }

  private adopt(a: AdoptAction, alone: boolean): void {
    const prev = this.store.getOffer(a.kind, a.externalId);
    this.store.upsertOffer(a.kind, a.externalId, {
      remoteId: a.remote.id,
      lastApplied: prev?.remoteId === a.remote.id ? prev.lastApplied : null,
      remoteStatus: a.remote.status ?? null,
      remoteUpdatedAt: a.remote.updatedAt ?? null,
      managed: true,
      sourceFile: a.desired?.source.file ?? prev?.sourceFile ?? null,
    });
    if (alone) {
      // Nothing differs from the live offer: what is live is what offersync would have sent.
      if (a.desired) {
        const { fields } = this.fieldsToSend(a.desired);
        this.applied(a.desired, a.remote, {}, fields);
      }
      this.report({ kind: a.kind, externalId: a.externalId, outcome: 'adopted', file: a.desired?.source.file });
    }
  }

  private imageProblem(d: DesiredOffer, failedUploads: ReadonlySet<string>): string | null {
    if (d.kind !== 'account') return null;
    const bad = d.images.filter((i) => failedUploads.has(i.sha256));
    return bad.length > 0 ? `not sent: image ${bad.map((i) => i.path).join(', ')} failed to upload` : null;
  }

  private async create(a: CreateAction, failedUploads: ReadonlySet<string>): Promise<void> {
    const d = a.desired;
    const file = d.source.file;
    const problem = this.imageProblem(d, failedUploads);
    if (problem)
      return this.report({ kind: d.kind, externalId: d.externalId, outcome: 'failed', file, message: problem });
    const resource = resourceOf(this.client, d.kind);
    const { fields } = this.fieldsToSend(d);
    const body: Record<string, unknown> = { external_id: d.externalId, ...fields };
    if (d.kind === 'account' && d.credentials) body.credentials = d.credentials;

    try {
      if (a.verifyFirst) {
        const existing = await resource.findByExternalId(d.externalId, { priority: PRIORITY.create });
        if (existing) return await this.adoptAndAlign(d, existing, fields);
      }
      // Derived from the first attempt's journal entry and kept for the retries: each is the same request.
      let idempotencyKey: string | undefined;
      for (let attempt = 1; ; attempt++) {
        try {
          const created = await this.journaled('create', d.kind, [d.externalId], (entry) => {
            idempotencyKey ??= `offersync-${entry.runId}-${entry.id}`;
            return resource.create(body, { priority: PRIORITY.create, idempotencyKey });
          });
          this.applied(d, created, fields, fields);
          return this.report({ kind: d.kind, externalId: d.externalId, outcome: 'created', file });
        } catch (err) {
          if (statusOf(err) === 409 || isOutcomeUnknown(err)) {
            // DESIGN.md decision 13: look before creating again. Only a definite "not there" allows a retry.
            const existing = await resource.findByExternalId(d.externalId, { priority: PRIORITY.create });
            if (existing) return await this.adoptAndAlign(d, existing, fields);
            if (statusOf(err) !== 409 && attempt < this.options.createAttempts) continue;
          }
          throw err;
        }
      }
    } catch (err) {
      this.report({ kind: d.kind, externalId: d.externalId, outcome: 'failed', file, message: errorMessage(err) });
    }
  }

  /** The offer exists already (an earlier create did land): adopt it and patch what differs. */
  private async adoptAndAlign(d: DesiredOffer, existing: RemoteOffer, fields: Record<string, unknown>): Promise<void> {
    const file = d.source.file;
    const locked = this.lockedBy(existing);
    if (locked) {
      this.markLocked(d.kind, d.externalId, existing);
      return this.report({
        kind: d.kind,
        externalId: d.externalId,
        outcome: 'sold',
        file,
        message: `the marketplace marks it ${locked}`,
      });
    }
    this.store.upsertOffer(d.kind, d.externalId, {
      remoteId: existing.id,
      managed: true,
      sourceFile: file,
      remoteStatus: existing.status ?? null,
    });
    // The earlier attempt's body is not known for sure: diff as for an adoption (nothing known to be sent).
    const body: Record<string, unknown> = {};
    for (const c of diffFields({ desired: fields, lastApplied: null, live: liveFieldsOf(existing), lossy: new Set() }))
      body[c.field] = c.to;
    if (d.kind === 'item') for (const f of Object.keys(body)) if (!ITEM_UPDATE_FIELDS.has(f)) delete body[f];
    if (d.kind === 'account' && d.credentials) body.credentials = d.credentials;
    if (Object.keys(body).length === 0) {
      this.applied(d, existing, {}, fields);
      return this.report({ kind: d.kind, externalId: d.externalId, outcome: 'adopted', file });
    }
    const updated = await this.patch(d, existing.id, body);
    if (updated === 'blocked') return;
    const { credentials: _c, ...sent } = body;
    this.applied(d, updated, sent, fields);
    this.report({ kind: d.kind, externalId: d.externalId, outcome: 'adopted', file });
  }

  async update(a: UpdateAction, failedUploads: ReadonlySet<string> = new Set()): Promise<void> {
    const d = a.desired;
    const file = d.source.file;
    const problem = this.imageProblem(d, failedUploads);
    if (problem)
      return this.report({ kind: d.kind, externalId: d.externalId, outcome: 'failed', file, message: problem });
    const { fields } = this.fieldsToSend(d);
    const body: Record<string, unknown> = {};
    for (const c of a.changes) body[c.field] = c.to;
    if (a.sendImages) body.image_ids = fields.image_ids;
    const sent = { ...body };
    if (a.sendCredentials && d.kind === 'account' && d.credentials) body.credentials = d.credentials;
    try {
      const updated = await this.patch(d, a.remoteId, body);
      if (updated === 'blocked') return;
      this.applied(d, updated, sent, fields);
      this.report({
        kind: d.kind,
        externalId: d.externalId,
        outcome: a.reason === 'adopted' ? 'adopted' : 'updated',
        file,
        fields: Object.keys(sent),
      });
    } catch (err) {
      if (statusOf(err) === 409) {
        const live = await resourceOf(this.client, d.kind)
          .get({ id: a.remoteId })
          .catch(() => null);
        if (live && this.lockedBy(live)) {
          this.markLocked(d.kind, d.externalId, live);
          return this.report({
            kind: d.kind,
            externalId: d.externalId,
            outcome: 'sold',
            file,
            message: `the marketplace marks it ${live.status}`,
          });
        }
      }
      this.report({ kind: d.kind, externalId: d.externalId, outcome: 'failed', file, message: errorMessage(err) });
    }
  }

  /** PATCH one offer; account PATCH goes through the capability probe and its fallback. */
  private async patch(
    d: DesiredOffer,
    remoteId: number,
    body: Record<string, unknown>,
  ): Promise<RemoteOffer | 'blocked'> {
    if (d.kind === 'account') return this.accountUpdates.patch(d, remoteId, body);
    return this.journaled('update', d.kind, [d.externalId], () =>
      resourceOf(this.client, d.kind).update({ id: remoteId }, body, { priority: PRIORITY.update }),
    );
  }
}

export async function execute(plan: Plan, deps: ExecutorDeps): Promise<OfferOutcome[]> {
  return new Execution(deps).run(plan);
}
