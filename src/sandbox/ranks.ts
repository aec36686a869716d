// Rank and division values of the account create request: a rank name, an id (1..10), or a combined
// rank-and-division value ("gold_2", "Gold II", "PLATINUM-iv"); a division I..IV or 1..4. Stored and echoed
// in one form: the lowercase rank name and the roman division.

export const RANKS = [
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
export type Rank = (typeof RANKS)[number];
export const DIVISIONS = ['I', 'II', 'III', 'IV'] as const;
export type Division = (typeof DIVISIONS)[number];

export interface ParsedRank {
  readonly rank: Rank;
  readonly division?: Division;
}

function rankById(n: number): Rank | undefined {
  return Number.isInteger(n) && n >= 1 && n <= RANKS.length ? RANKS[n - 1] : undefined;
}

function rankByName(s: string): Rank | undefined {
  const lower = s.toLowerCase();
  return (RANKS as readonly string[]).includes(lower) ? (lower as Rank) : undefined;
}

/** I..IV in any case, or 1..4 (number or digit string). */
export function parseDivision(v: unknown): Division | undefined {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 1 && v <= 4 ? DIVISIONS[v - 1] : undefined;
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  if (/^[1-4]$/.test(s)) return DIVISIONS[Number(s) - 1];
  const upper = s.toUpperCase();
  return (DIVISIONS as readonly string[]).includes(upper) ? (upper as Division) : undefined;
}

export function parseRank(v: unknown): ParsedRank | undefined {
  if (typeof v === 'number') {
    const rank = rankById(v);
    return rank ? { rank } : undefined;
  }
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  if (/^\d+$/.test(s)) {
    const rank = rankById(Number(s));
    return rank ? { rank } : undefined;
  }
  const byName = rankByName(s);
  if (byName) return { rank: byName };
  const combined = /^([a-z]+)[ _-]+([a-z]+|\d)$/i.exec(s);
  if (!combined) return undefined;
  const rank = rankByName(combined[1]!);
  const division = parseDivision(combined[2]!);
  return rank && division ? { rank, division } : undefined;
}
