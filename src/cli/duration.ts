// Durations as people write them on a command line: 0, 500ms, 30s, 5m, 1h (or combined: 1m30s).
import { UsageError } from './command.ts';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Milliseconds in `text`; a UsageError naming the flag when it is not a duration. */
export function parseDuration(text: string, flag: string): number {
  const t = text.trim();
  if (t === '0') return 0;
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== t) {
    throw new UsageError(`${flag} expects a duration such as 0, 30s, 5m or 1h (found '${text}')`);
  }
  return Math.round(parts.reduce((ms, p) => ms + Number(p[1]) * UNIT_MS[p[2] as keyof typeof UNIT_MS], 0));
}
