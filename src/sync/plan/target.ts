// What a targeted run (plan/reconcile --only, --file, --match) may touch: offers of these kinds, from these
// catalogue files, whose external_id matches a glob. Everything else is left as it is, archives included: a
// targeted run never archives outside its target. Plain data, so a plan that holds it stays plain data.
import type { OfferKind } from '../../catalogue/desired-offer.ts';

export interface Target {
  /** Only these kinds. */
  readonly kinds?: readonly OfferKind[];
  /** Only offers of these catalogue files (catalogue-relative, forward slashes); an offer gone from the
   * catalogue counts as from the file it last came from. */
  readonly files?: readonly string[];
  /** Only external_ids matching this glob (`*` any run of characters, `?` one, `[abc]` one of them). */
  readonly match?: string;
  /** Only these offers ("kind:external_id"): the offers a saved plan covers. */
  readonly keys?: readonly string[];
}

/** A glob over a whole external_id, as a regular expression. */
export function globRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      // A ']' first in the class (after the '!' of a negated one) is one of its characters, as in sh.
      const negated = glob[i + 1] === '!';
      const first = negated ? i + 2 : i + 1;
      const end = glob.indexOf(']', first + 1);
      if (end < 0) out += '\\[';
      else {
        const members = glob.slice(first, end).replace(/[\\\]]/g, '\\$&');
        out += negated ? `[^${members}]` : `[${members}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 's');
}

export type TargetTest = (kind: OfferKind, externalId: string, file: string | null | undefined) => boolean;

export function targetTest(t: Target): TargetTest {
  const kinds = t.kinds ? new Set(t.kinds) : null;
  const files = t.files ? new Set(t.files) : null;
  const re = t.match !== undefined ? globRegExp(t.match) : null;
  const keys = t.keys ? new Set(t.keys) : null;
  return (kind, externalId, file) =>
    (keys === null || keys.has(`${kind}:${externalId}`)) &&
    (kinds === null || kinds.has(kind)) &&
    (files === null || (file !== null && file !== undefined && files.has(file))) &&
    (re === null || re.test(externalId));
}

export function isTargeted(t: Target | undefined): t is Target {
  return (
    t !== undefined && (t.kinds !== undefined || t.files !== undefined || t.match !== undefined || t.keys !== undefined)
  );
}

/** The target as the flags that gave it: `--only item --file items/eu.json --match 'gold-*'`. */
export function describeTarget(t: Target): string {
  const parts: string[] = [];
  if (t.kinds) parts.push(`--only ${t.kinds.join(',')}`);
  for (const f of t.files ?? []) parts.push(`--file ${f}`);
  if (t.match !== undefined) parts.push(`--match '${t.match}'`);
  if (t.keys) parts.push(`the ${t.keys.length} offer${t.keys.length === 1 ? '' : 's'} of the saved plan`);
  return parts.join(' ');
}
