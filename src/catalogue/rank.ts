// Ranks and divisions in one canonical form: a rank is its lowercase name or an integer id; a division is
// a roman numeral I..IV or an integer id. The document gives no id table, so ids are kept, never mapped.

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
// Rank name, then a separator (space, underscore, hyphen), then a division in roman or arabic.
const COMBINED = /^(.+?)[\s_-]+(iv|iii|ii|i|[1-4])$/i;

export const RANK_EXPECTED =
  `expected a rank name (${RANK_NAMES.join(', ')}), a numeric rank id, or a rank with ` +
  `its division such as 'Gold II'`;
export const DIVISION_EXPECTED = 'expected a division I, II, III or IV, or a numeric division id';

export type RankResult = { readonly rank: string | number; readonly division?: string } | { readonly error: string };
export type DivisionResult = { readonly division: string | number } | { readonly error: string };

function rankName(text: string): string | undefined {
  // "Grand Master", "grand_master" are the same name.
  const compact = text.toLowerCase().replace(/[\s_-]+/g, '');
  return RANK_SET.get(compact);
}

export function parseRank(value: unknown): RankResult {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? { rank: value } : { error: `${RANK_EXPECTED}, got ${value}` };
  }
  if (typeof value !== 'string') return { error: RANK_EXPECTED };
  const s = value.trim();
  if (/^\d+$/.test(s)) return { rank: Number(s) };
  const name = rankName(s);
  if (name) return { rank: name };
  const m = COMBINED.exec(s);
  if (m) {
    const combinedName = rankName(m[1]!);
    const div = m[2]!.toUpperCase();
    if (combinedName) return { rank: combinedName, division: ARABIC_TO_ROMAN[div] ?? ROMAN.get(div) ?? div };
  }
  return { error: `${RANK_EXPECTED}, got '${value}'` };
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
