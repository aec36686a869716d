// One field's change: what the catalogue wants against what was last applied and what the marketplace shows.
import type { FieldName, FieldValue } from './offer-fields.ts';

/** One field an action changes. `from` is the live value where the server echoes it, else the last applied. */
export interface FieldChange {
  readonly field: FieldName;
  readonly from: unknown;
  readonly to: FieldValue;
  /** changed: the catalogue changed; drift: the website changed it; unsent: never sent (e.g. after adoption). */
  readonly why: 'changed' | 'drift' | 'unsent';
}
