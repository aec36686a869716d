// The three-way field diff (DESIGN.md decision 2), as kubectl apply does it:
// desired (catalogue) vs last applied (state) vs live (marketplace).
import type { RemoteOffer } from '../marketplace/marketplace-client.ts';
import type { FieldChange } from './plan.ts';
import { sameValue } from './canonical-json.ts';

/** What the marketplace shows of an offer, as fields comparable with what is sent (status included). */
export function liveFieldsOf(remote: RemoteOffer): Record<string, unknown> {
  const live: Record<string, unknown> = { ...remote.fields };
  if (remote.status !== undefined) live.status = remote.status;
  return live;
}

export interface DiffInput {
  readonly desired: Readonly<Record<string, unknown>>;
  /** What offersync last sent; null when it never sent this offer (adopted, or state lost). */
  readonly lastApplied: Readonly<Record<string, unknown>> | null;
  /** What the marketplace echoes; a field it does not carry is compared with last applied only. */
  readonly live: Readonly<Record<string, unknown>>;
  /** Fields the server stores differently from what was sent (decision 18): last applied only. */
  readonly lossy: ReadonlySet<string>;
}

/**
 * The fields to send. A field absent from the catalogue is not managed: absent stays absent, and a value the
 * seller removed from a file is left as it is on the marketplace.
 */
export function diffFields(input: DiffInput): FieldChange[] {
  const { desired, lastApplied, live, lossy } = input;
  const changes: FieldChange[] = [];
  for (const field of Object.keys(desired).sort()) {
    const want = desired[field];
    if (want === undefined) continue;
    const applied = lastApplied ? lastApplied[field] : undefined;
    const echoed = Object.prototype.hasOwnProperty.call(live, field) && live[field] !== undefined && !lossy.has(field);
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
