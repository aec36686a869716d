// The events of an offer's story as the executor records them (docs/architecture.md, History): what was sent, by
// which route, what the marketplace answered, and what offersync saw it do. Pure: the run context stamps the run
// and the time and writes them in batches.
import type { OfferKind } from '../../catalogue/desired-offer.ts';
import { scrubSecrets } from '../../log/scrubber.ts';
import type { MarketplaceAnswer, OfferEventChange, OfferEventInput } from '../../state/records.ts';
import { isOutcomeUnknown, statusOf, stoppedBeforeSent } from '../run-stopped.ts';
import { errorMessage } from '../../log/scrubber.ts';
import type { OfferFields } from '../fields/offer-fields.ts';
import type { UpdateAction } from '../plan/plan-actions.ts';
import type { FieldChange } from '../fields/field-change.ts';

/** An event before the run stamps it. */
export type EventDraft = Omit<OfferEventInput, 'runId' | 'at'>;

const SEGMENT: Readonly<Record<OfferKind, string>> = { account: 'accounts', item: 'items', topup: 'top-ups' };

/** The routes as the API document writes them, `:id` for the offer's id. */
export const EVENT_ROUTES = {
  create: (kind: OfferKind) => `POST /api/v1/${SEGMENT[kind]}`,
  update: (kind: OfferKind) => `PATCH /api/v1/${SEGMENT[kind]}/:id`,
  /** Accounts have DELETE; items and top-ups are archived by PATCH status=archived, or DELETE where it is refused. */
  archive: (kind: OfferKind) =>
    kind === 'account' ? 'DELETE /api/v1/accounts/:id' : `PATCH /api/v1/${SEGMENT[kind]}/:id`,
  delete: (kind: OfferKind) => `DELETE /api/v1/${SEGMENT[kind]}/:id`,
  bulk: (kind: OfferKind, op: 'bulk-update' | 'bulk-remove') => `POST /api/v1/${SEGMENT[kind]}/${op}`,
  recreate: 'DELETE /api/v1/accounts/:id, then POST /api/v1/accounts',
} as const;

/**
 * Fields whose values history never holds: an account's credentials and each of their parts. Such a change is
 * kept as its name alone, which `offersync history` shows as "(changed)".
 */
const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'credentials',
  'login',
  'password',
  'email_login',
  'email_password',
]);

export function keptChange(field: string, from: unknown, to: unknown, why?: OfferEventChange['why']): OfferEventChange {
  if (SECRET_FIELDS.has(field)) return { field };
  return {
    field,
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(why ? { why } : {}),
  };
}

/** The marketplace took the write (its success code is not read: the document leaves most of them open). */
export const TAKEN: MarketplaceAnswer = { outcome: 'ok', status: null, message: null };

/**
 * The marketplace's answer to a write that threw: refused with its status and message, or unknown (no answer,
 * a 5xx, a timeout). null when the request never went out (the run stopped, an image was missing, the lease was
 * lost): nothing happened to the offer, so there is nothing to tell. `secrets`: what the request carried.
 */
export function answerOf(err: unknown, secrets: Iterable<string | undefined> = []): MarketplaceAnswer | null {
  if (stoppedBeforeSent(err)) return null;
  const status = statusOf(err) ?? null;
  const server = (err as { serverMessage?: unknown } | null)?.serverMessage;
  const message = scrubSecrets(typeof server === 'string' ? server : errorMessage(err), secrets);
  if (isOutcomeUnknown(err)) return { outcome: 'unknown', status, message };
  return status === null ? null : { outcome: 'refused', status, message };
}

/** Every field a create sends, and the credentials by name. */
export function createdChanges(kind: OfferKind, fields: OfferFields, credentials: boolean): OfferEventChange[] {
  const out: OfferEventChange[] = [];
  for (const [field, to] of Object.entries(fields)) if (to !== undefined) out.push(keptChange(field, undefined, to));
  if (kind === 'account' && credentials) out.push(keptChange('credentials', undefined, undefined));
  return out;
}

/** The changes an update sends, each with why; new credentials and a new gallery by name. */
export function updatedChanges(
  changes: readonly FieldChange[],
  credentials: boolean,
  images: readonly number[] | undefined,
): OfferEventChange[] {
  const out = changes.map((c) => keptChange(c.field, c.from, c.to, c.why));
  if (images) out.push(keptChange('image_ids', undefined, images, 'changed'));
  if (credentials) out.push(keptChange('credentials', undefined, undefined));
  return out;
}

/**
 * What the website changed, read from an update's drift changes (the catalogue still says what offersync sent, so
 * that is what the website changed it from), or null when the update patches nothing back.
 */
export function editedOnWebsite(
  kind: OfferKind,
  externalId: string,
  changes: readonly FieldChange[],
): EventDraft | null {
  const drift = changes.filter((c) => c.why === 'drift');
  if (drift.length === 0) return null;
  return {
    ...seen(kind, externalId, 'edited-on-website'),
    changes: drift.map((c) => keptChange(c.field, c.to, c.from)),
  };
}

/** An event offersync saw happen, no request of its own behind it. */
export function seen(
  kind: OfferKind,
  externalId: string,
  type: EventDraft['type'],
  detail: string | null = null,
  quantity: number | null = null,
): EventDraft {
  return { kind, externalId, type, route: null, changes: [], quantity, detail, answer: null };
}

/** A write offersync sent, and the answer. */
export function sentWrite(
  kind: OfferKind,
  externalId: string,
  type: 'created' | 'updated' | 'archived',
  route: string,
  changes: readonly OfferEventChange[],
  answer: MarketplaceAnswer,
  detail: string | null = null,
): EventDraft {
  return { kind, externalId, type, route, changes, quantity: null, detail, answer };
}

/** Why an update was sent, as history tells it (a patch back says so itself, after the edit it undoes). */
export const UPDATE_REASONS: Readonly<Record<UpdateAction['reason'], string | null>> = {
  changed: 'changed in the catalogue',
  drift: null,
  relist: 'archived on the website, still in the catalogue: listed again',
  adopted: 'found under its external_id: aligned with the catalogue',
};
