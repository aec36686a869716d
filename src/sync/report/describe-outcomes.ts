// What the seller reads of each write a run made: the executor reports that an offer was created, updated or
// archived; the plan knows what it was (a create's title and price, an update's fields old -> new, an archive's
// reason). Joined here, after the run, so the report keeps them (the run's report file, status --run).
import type { Plan, PlanAction } from '../plan/plan-actions.ts';
import type { OfferOutcome, ShownChange } from './run-report.ts';

export function describeOutcomes(outcomes: readonly OfferOutcome[], plan: Plan): OfferOutcome[] {
  // By kind, then external_id: no "kind:external_id" string made and hashed per offer (100,000s at a run's end,
  // when its memory peaks).
  const actions = new Map<string, Map<string, PlanAction>>();
  for (const a of plan.actions)
    if (a.type !== 'upload' && a.type !== 'noop') {
      const ofKind = actions.get(a.kind) ?? new Map<string, PlanAction>();
      actions.set(a.kind, ofKind.set(a.externalId, a));
    }
  return outcomes.map((o) => {
    const a = actions.get(o.kind)?.get(o.externalId);
    if (!a) return o;
    if (o.outcome === 'created' && a.type === 'create') {
      const { price, currency } = a.fields;
      const title = a.fields.title ?? a.fields.offer_title;
      const out = copied(o);
      out.file = o.file ?? a.desired.source.file;
      out.reason = a.reason;
      if (title !== undefined) out.title = title;
      if (price !== undefined) out.price = price;
      if (currency !== undefined) out.currency = currency;
      return out;
    }
    if (o.outcome === 'updated' && a.type === 'update') {
      const changes: ShownChange[] = a.changes.map((c) => ({
        field: c.field,
        from: c.from,
        to: c.to,
        ...(c.why === 'drift' ? { patchedBack: true as const } : {}),
      }));
      // Credentials are compared by HMAC and never shown: only that they changed.
      if (a.sendCredentials) changes.push({ field: 'credentials', from: null, to: null });
      return { ...o, file: o.file ?? a.desired.source.file, reason: a.reason, changes };
    }
    if (o.outcome === 'archived' && a.type === 'archive') return { ...o, reason: a.reason };
    return o;
  });
}

/**
 * An outcome's own copy, to add to: a copy loop, not an object spread, on this per-offer path. V8 gives spread
 * copies of many shapes hidden classes of their own; 100,000 of them were part of a first sync's peak at its report.
 */
function copied(o: OfferOutcome): { -readonly [K in keyof OfferOutcome]: OfferOutcome[K] } {
  const out: Record<string, unknown> = {};
  for (const k in o) out[k] = o[k as keyof OfferOutcome];
  return out as { -readonly [K in keyof OfferOutcome]: OfferOutcome[K] };
}
