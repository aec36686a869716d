// The three-way field diff, as kubectl apply does it: desired (catalogue) vs last applied (state) vs live
// (marketplace). See docs/architecture.md, Three-way diff.
import type { RemoteOffer } from '../../marketplace/marketplace-client.ts';
import { sameValue } from './canonical-json.ts';
import { fieldNames, type OfferFields } from './offer-fields.ts';
import type { FieldChange } from './field-change.ts';

/** What the marketplace shows of an offer, as fields comparable with what is sent (status included). */
export function liveFieldsOf(remote: RemoteOffer): Readonly<Record<string, unknown>> {
  if (remote.status === undefined) return remote.fields;
  // A copy loop, not an object spread: V8 gives spread copies of the three kinds' fields a hidden class each.
  const out: Record<string, unknown> = {};
  for (const k in remote.fields) out[k] = remote.fields[k];
  out.status = remote.status;
  return out;
}

export interface DiffInput {
  readonly desired: OfferFields;
  /** What offersync last sent; null when it never sent this offer (adopted, or state lost). */
  readonly lastApplied: Readonly<Record<string, unknown>> | null;
  /** What the marketplace echoes; a field it does not carry is compared with last applied only. */
  readonly live: Readonly<Record<string, unknown>>;
  /** Fields the server stores differently from what was sent: compared with last applied only. */
  readonly lossy: ReadonlySet<string>;
}

/**
 * The fields to send. A field absent from the catalogue is not managed: absent stays absent, and a value the
 * seller removed from a file is left as it is on the marketplace.
 */
export function diffFields(input: DiffInput): FieldChange[] {
  const { desired, lastApplied, live, lossy } = input;
  const changes: FieldChange[] = [];
  for (const field of fieldNames(desired)) {
    const want = desired[field];
    if (want === undefined) continue;
    const applied = lastApplied ? lastApplied[field] : undefined;
    const echoed = Object.hasOwn(live, field) && live[field] !== undefined && !lossy.has(field);
    if (!echoed) {
      if (lastApplied === null || applied === undefined)
        changes.push({ field, from: applied, to: want, why: 'unsent' });
      else if (!sameValue(want, applied)) changes.push({ field, from: applied, to: want, why: 'changed' });
      continue;
    }
    const current = live[field];
    if (sameValue(want, current)) continue;
    const why = applied !== undefined && sameValue(want, applied) ? 'drift' : 'changed';
    changes.push({ field, from: current, to: want, why });
  }
  return changes;
}
