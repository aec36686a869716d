// An account's fields worded as the marketplace reads them, where offersync keeps them otherwise (API document
// 2.1 and 2.2; the real server's rank mapping). Only the request changes: diffs and the state keep the
// fields by their own names.
//
// - A rank with a division goes as one combined value (`rank: "gold II"`, `flex_rank: "gold II"`), as 2.1 and 2.2
//   allow. Sent apart as current_rank + current_division, the real server stores the label of the rank alone
//   (`gold`) and the division is lost from it.
// - game_points goes inside `parameters` as well as at the top level: 2.1 and 2.2 name it in both places, the real
//   server keeps only the one inside parameters, and a server that follows the document reads (and echoes) the
//   top-level one. parameters then travels whole, the seller's details with game_points added, since a server
//   may replace the parameters it holds by those sent.
import type { DesiredOffer } from '../../catalogue/desired-offer.ts';
import { DIVISIONS } from '../../catalogue/rank.ts';

type Body = Readonly<Record<string, unknown>>;

/** The rank fields that a combined value replaces, by the key it travels under. */
const COMBINED_RANKS = [
  { key: 'rank', rank: 'current_rank', division: 'current_division' },
  { key: 'flex_rank', rank: 'flex_rank', division: 'flex_division' },
] as const;

const isDivision = (v: unknown): v is string => typeof v === 'string' && (DIVISIONS as readonly string[]).includes(v);

/** The body as sent for `d`; bodies of items and top-ups unchanged. */
export function accountWireBody(body: Body, d: DesiredOffer): Body {
  if (d.kind !== 'account') return body;
  const want = d.fields;
  const out: Record<string, unknown> = { ...body };
  for (const c of COMBINED_RANKS) {
    if (!(c.rank in body) && !(c.division in body)) continue;
    const rank = want[c.rank];
    const division = want[c.division];
    // A numeric rank or division is an id whose combined form the document does not give: sent apart.
    if (typeof rank !== 'string' || !isDivision(division)) continue;
    delete out[c.rank];
    delete out[c.division];
    out[c.key] = `${rank} ${division}`;
  }
  if (want.game_points !== undefined && ('game_points' in body || 'parameters' in body))
    out.parameters = { ...want.parameters, game_points: want.game_points };
  return out;
}
