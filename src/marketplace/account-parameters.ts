// The ranks a marketplace maps into an account's `parameters` (rank_id, division_id, division, rank_label, lp, and
// the flex_ and previous_ ones) read back as the document's flat fields (current_rank, current_division,
// current_lp, ...), in the form the catalogue writes them: a lowercase rank name and a roman division. Such a server
// returns no flat rank field, so without this a rank could never be compared and every adoption would send it.

/** Rank ids as the marketplace numbers them: 1 iron ... 10 challenger (0 is unranked, which has no name here). */
const RANK_BY_ID = [
  undefined,
  'iron',
  'bronze',
  'silver',
  'gold',
  'platinum',
  'emerald',
  'diamond',
  'master',
  'grandmaster',
  'challenger',
] as const;
const RANK_NAMES: ReadonlySet<string> = new Set(RANK_BY_ID.filter((r) => r !== undefined));
const ROMAN = ['I', 'II', 'III', 'IV'] as const;
/** Division ids count up to the top of a rank: 1 is IV, 4 is I. */
const DIVISION_BY_ID: Readonly<Record<number, string>> = { 1: 'IV', 2: 'III', 3: 'II', 4: 'I' };

/** The keys such a server adds to the parameters it was sent, per rank: its own, never the seller's. */
const MAPPED_SUFFIXES = ['rank_id', 'division_id', 'division', 'rank_label', 'lp'] as const;
const PREFIXES = ['current', 'flex', 'previous'] as const;
type RankPrefix = (typeof PREFIXES)[number];

function mappedKey(prefix: RankPrefix, suffix: (typeof MAPPED_SUFFIXES)[number]): string {
  return prefix === 'current' ? suffix : `${prefix}_${suffix}`;
}

/** Whether the object holds ranks as such a server maps them (rank_id, rank_label, division_id, ...). */
export function hasMappedRanks(params: Readonly<Record<string, unknown>>): boolean {
  return PREFIXES.some((p) => ['rank_id', 'rank_label'].some((s) => params[mappedKey(p, s as 'rank_id')] != null));
}

function integer(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) return Number(v);
  return undefined;
}

function rankName(v: unknown): string | undefined {
  const id = integer(v);
  if (id !== undefined) return RANK_BY_ID[id];
  if (typeof v !== 'string') return undefined;
  const compact = v.toLowerCase().replace(/[\s_-]+/g, '');
  return RANK_NAMES.has(compact) ? compact : undefined;
}

function roman(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const upper = v.trim().toUpperCase();
  return (ROMAN as readonly string[]).includes(upper) ? upper : undefined;
}

/** "Gold II" as its rank and division; "Master" as its rank alone. */
function fromLabel(v: unknown): { rank?: string; division?: string } {
  if (typeof v !== 'string') return {};
  const m = /^(.+?)[\s_-]+(IV|III|II|I)$/i.exec(v.trim());
  if (m) {
    const rank = rankName(m[1]);
    const division = roman(m[2]);
    return { ...(rank ? { rank } : {}), ...(division ? { division } : {}) };
  }
  const rank = rankName(v);
  return rank ? { rank } : {};
}

/**
 * The flat rank fields read from mapped parameters: only those the parameters state, so a rank the server dropped
 * (LP below master, the division of master and above) stays absent, as not echoed.
 */
export function ranksFromParameters(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prefix of PREFIXES) {
    const label = fromLabel(params[mappedKey(prefix, 'rank_label')]);
    const rank = rankName(params[mappedKey(prefix, 'rank_id')]) ?? label.rank;
    if (rank === undefined) continue;
    out[`${prefix}_rank`] = rank;
    const divisionId = integer(params[mappedKey(prefix, 'division_id')]);
    const division =
      roman(params[mappedKey(prefix, 'division')]) ??
      (divisionId !== undefined ? DIVISION_BY_ID[divisionId] : undefined) ??
      label.division;
    if (division !== undefined) out[`${prefix}_division`] = division;
    const lp = integer(params[mappedKey(prefix, 'lp')]);
    if (lp !== undefined) out[`${prefix}_lp`] = lp;
  }
  return out;
}

/** The parameters as the seller sent them: without the keys the server added for its ranks. */
export function sellerParameters(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const mapped = new Set(PREFIXES.flatMap((p) => MAPPED_SUFFIXES.map((s) => mappedKey(p, s))));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) if (!mapped.has(k)) out[k] = v;
  return out;
}
