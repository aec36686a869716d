// An item's game, changed in the catalogue. The marketplace's real PATCH /items/{id} takes it (only its
// bulk-update ignores it), while the API document lists five update fields without game. So the single PATCH
// carries it, and the first one probes: a 422 that names game marks the route unable to change it (remembered
// like any capability), the rest of the change is sent without it, and the planner then reports the game as
// something the marketplace cannot change.
import type { DesiredOffer } from '../../catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../marketplace/marketplace-client.ts';
import { CAPABILITIES } from '../../capabilities/names.ts';
import { statusOf } from '../run-stopped.ts';
import { errorMessage } from '../../log/scrubber.ts';
import type { ExecutionContext } from './execution-context.ts';
import type { OfferFields } from '../fields/offer-fields.ts';

/** Worded as the planner words the item fields a PATCH cannot change (plan/decide-desired.ts). */
export const ITEM_GAME_FIXED = 'the API cannot change game of an item: give it a new external_id to list it anew';

/** Whether the update changes an item's game (which travels by the single PATCH only). */
export function changesItemGame(kind: DesiredOffer['kind'], fields: Readonly<Record<string, unknown>>): boolean {
  return kind === 'item' && 'game' in fields;
}

/** A 422 whose field errors (or, without them, whose message) name game. */
function refusesGame(err: unknown): boolean {
  if (statusOf(err) !== 422) return false;
  const errors = (err as { errors?: Readonly<Record<string, unknown>> }).errors;
  if (errors) return 'game' in errors;
  return /\bgame\b/i.test((err as { serverMessage?: string }).serverMessage ?? '');
}

export interface SentUpdate {
  readonly updated: RemoteOffer | 'blocked';
  /** What the marketplace took: without game when it refused that. */
  readonly sent: OfferFields;
}

/**
 * Sends an item update that changes its game through `send` (the single PATCH), probing whether the route takes
 * game; refused, the rest goes without it, or, nothing else changing, the offer is reported blocked.
 */
export function sendItemGameUpdate(
  ctx: ExecutionContext,
  d: DesiredOffer,
  sent: OfferFields,
  send: (body: OfferFields) => Promise<RemoteOffer | 'blocked'>,
): Promise<SentUpdate> {
  const { game: _game, ...rest } = sent;
  return ctx.capabilities.call<SentUpdate>({
    capability: CAPABILITIES.itemGameUpdate,
    attempt: async () => ({ updated: await send(sent), sent }),
    refusal: async (err) => (refusesGame(err) ? `${statusOf(err)}: ${errorMessage(err)}` : null),
    fallback: async () => {
      if (Object.keys(rest).length > 0) return { updated: await send(rest), sent: rest };
      const file = d.source.file;
      ctx.report({
        kind: d.kind,
        externalId: d.externalId,
        outcome: 'blocked',
        file,
        fields: ['game'],
        message: ITEM_GAME_FIXED,
      });
      return { updated: 'blocked', sent: rest };
    },
    proberFallsBack: true,
  });
}
