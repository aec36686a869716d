// Ranks and divisions in one canonical form: a rank is its lowercase name or an integer id; a division is
// a roman numeral I..IV or an integer id. The document gives no id table, so ids are kept, never mapped.
// Read as sellers write them: 'Plat 1', 'gold2', 'D4' (a first letter with a division), 'GM', and league points
// after the division, 'Diamond 4 (75 LP)'. 'Unranked' is an account with no rank: the field is left out, which
// every marketplace takes (the documented one names no such rank).

export const RANK_NAMES = [
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
export type RankName = (typeof RANK_NAMES)[number];
export const DIVISIONS = ['I', 'II', 'III', 'IV'] as const;

/** Name to the table's own string, so that every offer with a rank shares one. */
const RANK_SET: ReadonlyMap<string, RankName> = new Map(RANK_NAMES.map((n) => [n, n]));
const ARABIC_TO_ROMAN: Readonly<Record<string, string>> = { '1': 'I', '2': 'II', '3': 'III', '4': 'IV' };
const ROMAN: ReadonlyMap<string, string> = new Map(DIVISIONS.map((d) => [d, d]));
// Rank name, then maybe a separator (space, underscore, hyphen), then a division in roman or arabic.
const COMBINED = /^(.+?)[\s_-]*(iv|iii|ii|i|[1-4])$/i;
/** Short names sellers write, by their compact lower-case form. */
const SHORT_NAMES: ReadonlyMap<string, RankName> = new Map([
  ['plat', 'platinum'],
  ['plati', 'platinum'],
  ['dia', 'diamond'],
  ['emer', 'emerald'],
  ['gm', 'grandmaster'],
  ['chall', 'challenger'],
]);
/** A first letter stands for a rank only with a division after it ('D4', 'p1'): alone it could be anything. */
const INITIALS: ReadonlyMap<string, RankName> = new Map([
  ['i', 'iron'],
  ['b', 'bronze'],
  ['s', 'silver'],
  ['g', 'gold'],
  ['p', 'platinum'],
  ['e', 'emerald'],
  ['d', 'diamond'],
]);
const NO_RANK: ReadonlySet<string> = new Set(['unranked', 'norank', 'none']);
// League points after the rank: 'Diamond 4 (75 LP)', 'D4 75LP', 'Gold II - 20 LP'.
const WITH_LP = /^(.*?)[\s,;:_-]*\(?\s*(\d{1,4})\s*lp\s*\)?$/i;

export const RANK_EXPECTED =
  `expected a rank name (${RANK_NAMES.join(', ')}, or unranked), a numeric rank id, or a rank with ` +
  `its division such as 'Gold II', 'gold2' or 'D4'`;
export const DIVISION_EXPECTED = 'expected a division I, II, III or IV, or a numeric division id';

export type RankResult =
  | { readonly rank: string | number; readonly division?: string; readonly lp?: number }
  | { readonly unranked: true }
  | { readonly error: string };
export type DivisionResult = { readonly division: string | number } | { readonly error: string };

function rankName(text: string): string | undefined {
  // "Grand Master", "grand_master" are the same name.
  const compact = text.toLowerCase().replace(/[\s_-]+/g, '');
  return RANK_SET.get(compact) ?? SHORT_NAMES.get(compact);
}

export function parseRank(value: unknown): RankResult {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? { rank: value } : { error: `${RANK_EXPECTED}, got ${value}` };
  }
  if (typeof value !== 'string') return { error: RANK_EXPECTED };
  const s = value.trim();
  if (/^\d+$/.test(s)) return { rank: Number(s) };
  if (NO_RANK.has(s.toLowerCase().replace(/[\s_-]+/g, ''))) return { unranked: true };
  const lp = WITH_LP.exec(s);
  const named = nameAndDivision(lp ? lp[1]! : s);
  if (named) return lp ? { ...named, lp: Number(lp[2]) } : named;
  return { error: `${RANK_EXPECTED}, got '${value}'` };
}

function nameAndDivision(s: string): { rank: string; division?: string } | undefined {
  const name = rankName(s);
  if (name) return { rank: name };
  const m = COMBINED.exec(s);
  if (!m) return undefined;
  const head = m[1]!;
  const combinedName = rankName(head) ?? INITIALS.get(head.toLowerCase());
  const div = m[2]!.toUpperCase();
  return combinedName ? { rank: combinedName, division: ARABIC_TO_ROMAN[div] ?? ROMAN.get(div) ?? div } : undefined;
}

export function parseDivision(value: unknown): DivisionResult {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0
      ? { division: value }
      : { error: `${DIVISION_EXPECTED}, got ${value}` };
  }
  if (typeof value !== 'string') return { error: DIVISION_EXPECTED };
  const s = value.trim();
  if (/^\d+$/.test(s)) return { division: Number(s) };
  const roman = ROMAN.get(s.toUpperCase());
  if (roman !== undefined) return { division: roman };
  return { error: `${DIVISION_EXPECTED}, got '${value}'` };
}

/** The combined canonical text ("gold II") used where one value carries both, as in parameters.rank. */
export function combinedRank(r: { rank: string | number; division?: string }): string | number {
  return r.division === undefined ? r.rank : `${r.rank} ${r.division}`;
}
