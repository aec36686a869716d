// docs/architecture.md, Three-way diff: a field the server echoes with a value other than the one just written is
// stored differently on that server (a rank turned into an id, a status mapped). From then on it is compared with last
// applied only, so the daemon never patches the same offer on every tick.
import type { RemoteOffer } from '../../marketplace/marketplace-client.ts';
import { sameValue } from './canonical-json.ts';
import { liveFieldsOf } from './diff.ts';
import type { OfferFields } from './offer-fields.ts';

export function lossyFields(sent: OfferFields, echoed: RemoteOffer, previous: readonly string[] = []): string[] {
  const out = new Set(previous);
  const live = liveFieldsOf(echoed);
  for (const [field, value] of Object.entries(sent)) {
    if (live[field] !== undefined && !sameValue(live[field], value)) out.add(field);
  }
  return [...out].sort();
}
