// Account PATCH is served by the marketplace but not in the API document (DESIGN.md decision 11): the first
// update probes it, a refusal of the route marks it unusable, and the work falls back to reporting it blocked
// or, when configured, to archive-and-recreate, which is itself probed on one offer before the others.
import type { DesiredOffer } from '../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../marketplace/marketplace-client.ts';
import { CAPABILITIES, isCapabilityRefusal } from './capabilities.ts';
import { errorMessage, statusOf } from './errors.ts';
import { PRIORITY, type Execution } from './executor.ts';
import { resourceOf } from './read-snapshot.ts';

export class AccountUpdates {
  private probe: Promise<void> | null = null;
  private recreateGate: Promise<void> = Promise.resolve();

  constructor(private readonly ex: Execution) {}

  /**
   * PATCH one offer. Account PATCH is not in the API document: the first one probes it, and a refusal of the
   * route marks it unusable so the rest are reported blocked (or re-created) instead of failing one by one.
   */
  async patch(d: DesiredOffer, remoteId: number, body: Record<string, unknown>): Promise<RemoteOffer | 'blocked'> {
    const resource = resourceOf(this.ex.client, d.kind);
    const send = () =>
      this.ex.journaled('update', d.kind, [d.externalId], () =>
        resource.update({ id: remoteId }, body, { priority: PRIORITY.update }),
      );
    if (d.kind !== 'account') return send();

    const cap = this.ex.store.getCapability(CAPABILITIES.accountUpdate);
    if (cap && !cap.usable) return this.accountUpdateFallback(d, remoteId, body);
    if (!cap) {
      if (this.probe) {
        await this.probe;
        return this.patch(d, remoteId, body);
      }
      let release!: () => void;
      this.probe = new Promise((r) => (release = r));
      try {
        const out = await send();
        this.ex.store.setCapability(CAPABILITIES.accountUpdate, true, null);
        return out;
      } catch (err) {
        if (isCapabilityRefusal(err) && statusOf(err) !== 422) {
          // A 404 may mean "no such offer" as well as "no such route": the offer's GET tells them apart.
          const exists = await resource.get({ id: remoteId }).then(
            () => true,
            () => false,
          );
          if (exists || statusOf(err) === 405) {
            this.ex.store.setCapability(CAPABILITIES.accountUpdate, false, `${statusOf(err)}: ${errorMessage(err)}`);
            this.ex.logger.warn(
              { status: statusOf(err) },
              'the marketplace does not serve PATCH /accounts/{id}: account updates fall back',
            );
            return this.accountUpdateFallback(d, remoteId, body);
          }
        }
        throw err;
      } finally {
        // Settled either way: the capability is known now, or the probe failed for another reason (a 5xx)
        // and the next update probes again. Leaving it set would make waiters loop on a resolved promise.
        this.probe = null;
        release();
      }
    }
    return send();
  }

  private async accountUpdateFallback(
    d: DesiredOffer,
    remoteId: number,
    body: Record<string, unknown>,
  ): Promise<RemoteOffer | 'blocked'> {
    const recreate =
      this.ex.options.updateFallback === 'recreate' &&
      this.ex.store.getCapability(CAPABILITIES.accountRecreate)?.usable !== false;
    if (!recreate) {
      this.ex.report({
        kind: d.kind,
        externalId: d.externalId,
        outcome: 'blocked',
        file: d.source.file,
        fields: Object.keys(body).filter((f) => f !== 'credentials'),
        message:
          this.ex.options.updateFallback === 'recreate'
            ? 'the marketplace does not serve PATCH /accounts/{id}, and it keeps archived external_ids, so it cannot be re-created either'
            : 'the marketplace does not serve PATCH /accounts/{id}; set accounts.updateFallback: recreate to archive and create it anew',
      });
      return 'blocked';
    }
    // Archive-then-create loses the listing if the server refuses the create: until one recreate has worked,
    // they go one at a time, so a refusal costs one offer, not every offer in flight.
    if (!this.ex.store.getCapability(CAPABILITIES.accountRecreate)) {
      const previous = this.recreateGate;
      let release!: () => void;
      this.recreateGate = new Promise((r) => (release = r));
      await previous;
      try {
        return await this.recreate(d, remoteId, body);
      } finally {
        release();
      }
    }
    return this.recreate(d, remoteId, body);
  }

  private async recreate(
    d: DesiredOffer,
    remoteId: number,
    body: Record<string, unknown>,
  ): Promise<RemoteOffer | 'blocked'> {
    if (this.ex.store.getCapability(CAPABILITIES.accountRecreate)?.usable === false)
      return this.accountUpdateFallback(d, remoteId, body);
    await this.ex.journaled('recreate', d.kind, [d.externalId], () =>
      this.ex.client.accounts.archive({ id: remoteId }, { priority: PRIORITY.update }),
    );
    const { fields } = this.ex.fieldsToSend(d);
    const full: Record<string, unknown> = { external_id: d.externalId, ...fields };
    if (d.kind === 'account' && d.credentials) full.credentials = d.credentials;
    try {
      const created = await this.ex.journaled('create', d.kind, [d.externalId], () =>
        resourceOf(this.ex.client, d.kind).create(full, { priority: PRIORITY.create }),
      );
      this.ex.store.setCapability(CAPABILITIES.accountRecreate, true, null);
      return created;
    } catch (err) {
      if (statusOf(err) !== 409) throw err;
      this.ex.store.setCapability(CAPABILITIES.accountRecreate, false, `409 after archive: ${errorMessage(err)}`);
      throw new Error(
        `archived #${remoteId} to re-create it, but the marketplace refused the create (409: it keeps archived external_ids). ` +
          'The offer stays archived until it is given a new external_id; other account updates are now reported as blocked.',
      );
    }
  }
}
