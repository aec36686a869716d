// Two account offers of the catalogue that sell one physical account (one login fingerprint: account-fingerprint.ts):
// the second is an error naming both places, and neither is synced until one of them goes, as with a duplicate
// external_id (conflict-index.ts). The login is never shown: the error names rows, not credentials.
import type { CatalogueProblem } from './catalogue-problem.ts';
import type { DesiredAccount, DesiredOffer, SourceLocation } from './desired-offer.ts';

/** An account offer the catalogue holds back, by the fingerprint of the account it sells. */
export interface HeldAccount {
  readonly externalId: string;
  readonly loginFingerprint: string;
}

export interface SameAccountVerdict {
  /** The offers that share their account with another: none of them is synced. */
  readonly held: ReadonlySet<DesiredOffer>;
  readonly problems: readonly CatalogueProblem[];
}

const NONE: SameAccountVerdict = { held: new Set(), problems: [] };

function where(s: SourceLocation): string {
  return s.line !== undefined ? `${s.file}:${s.line}` : s.pointer ? `${s.file}#${s.pointer}` : s.file;
}

/** The account offers, in catalogue order, that share a login with an earlier one, and an error for each. */
export function sameAccountOffers(offers: readonly DesiredOffer[]): SameAccountVerdict {
  const first = new Map<string, DesiredAccount>();
  const held = new Set<DesiredOffer>();
  const problems: CatalogueProblem[] = [];
  for (const o of offers) {
    if (o.kind !== 'account' || o.loginFingerprint === undefined) continue;
    const earlier = first.get(o.loginFingerprint);
    if (earlier === undefined) {
      first.set(o.loginFingerprint, o);
      continue;
    }
    held.add(earlier);
    held.add(o);
    problems.push({
      severity: 'error',
      file: o.source.file,
      ...(o.source.line !== undefined ? { line: o.source.line } : {}),
      ...(o.source.pointer !== undefined ? { pointer: `${o.source.pointer}/credentials` } : {}),
      kind: 'account',
      externalId: o.externalId,
      field: 'credentials.login',
      message:
        `the same game account as '${earlier.externalId}' at ${where(earlier.source)} (the same login, ` +
        `whatever its case and spaces): one account can be sold once, so neither is listed until one of the ` +
        `two rows is removed`,
    });
  }
  return held.size === 0 ? NONE : { held, problems };
}
