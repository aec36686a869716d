// --since as people write it: a duration back from now (30m, 12h, 7d, 1d12h) or a date or time (2026-11-20,
// 2026-11-20T08:00:00Z; a date alone is midnight UTC).
import { UsageError } from './command.ts';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Epoch ms that `text` names, counted back from `now` for a duration; a UsageError naming the flag otherwise. */
export function parseSince(text: string, now: number, flag = '--since'): number {
  const t = text.trim();
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length > 0 && parts.map((p) => p[0]).join('') === t)
    return now - Math.round(parts.reduce((ms, p) => ms + Number(p[1]) * UNIT_MS[p[2] as keyof typeof UNIT_MS], 0));
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(t)) {
    const at = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(t) ? `${t}T00:00:00Z` : t.replace(' ', 'T'));
    if (Number.isFinite(at)) return at;
  }
  throw new UsageError(
    `${flag} expects a duration back from now (30m, 12h, 7d) or a date (2026-11-20, 2026-11-20T08:00:00Z); ` +
      `found '${text}'`,
  );
}
