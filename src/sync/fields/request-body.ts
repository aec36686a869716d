// Request bodies, built one way for every route: a create sends the external_id and every field, an update
// sends the planned changes; credentials are added last and only for the request (never stored or logged).
import type { AccountCredentials, DesiredOffer } from '../../catalogue/desired-offer.ts';
import { accountWireBody } from './account-wire-body.ts';
import type { OfferFields } from './offer-fields.ts';
import type { FieldChange } from './field-change.ts';

export type RequestBody = OfferFields & {
  readonly external_id?: string;
  readonly credentials?: AccountCredentials;
};

/** The fields an update sends: each change's desired value. */
export function changesToBody(changes: readonly FieldChange[]): OfferFields {
  // A change's `to` is the desired value of its own field, so the entries rebuild an OfferFields.
  return Object.fromEntries(changes.map((c) => [c.field, c.to])) as OfferFields;
}

export function createBody(d: DesiredOffer, fields: OfferFields): RequestBody {
  return withCredentials({ external_id: d.externalId, ...fields }, d, true);
}

/** A create's body as it goes on the wire (an account's rank and game points worded as the marketplace reads them). */
export function createWireBody(d: DesiredOffer, fields: OfferFields): Readonly<Record<string, unknown>> {
  return accountWireBody(createBody(d, fields), d);
}

/** Adds the desired credentials to an account's body when they are to be sent. */
export function withCredentials(body: RequestBody, d: DesiredOffer, send: boolean): RequestBody {
  return send && d.kind === 'account' && d.credentials ? { ...body, credentials: d.credentials } : body;
}

/** The credential values of an offer (none for items and top-ups), to scrub from what the marketplace answers. */
export function credentialValues(d: DesiredOffer): (string | undefined)[] {
  return d.kind === 'account' && d.credentials ? Object.values(d.credentials) : [];
}
