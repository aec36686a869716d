// Readable log lines for a person at a terminal: `12:03:04 WARN  offer failed  kind=item externalId="a b"`.
// pino still builds each JSON line (redaction and the secret scrub included); this only renders it again.

const LEVELS: Readonly<Record<number, { name: string; color: string }>> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '36' },
  30: { name: 'INFO', color: '32' },
  40: { name: 'WARN', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '35' },
};
/** Fields every line has, shown as the time, the level and the message rather than as key=value. */
const HIDDEN = new Set(['level', 'time', 'msg', 'name', 'pid', 'hostname']);

export interface PrettyOptions {
  /** ANSI colours for the level, and clearing a progress line before writing. */
  readonly color: boolean;
}

/** One pino JSON line as a person reads it; a line that is not JSON comes back as it was. */
export function prettyLine(line: string, opts: PrettyOptions): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof o.time === 'number' ? new Date(o.time).toISOString().slice(11, 19) : '';
  const level = LEVELS[Number(o.level)] ?? { name: String(o.level), color: '0' };
  const name = level.name.padEnd(5);
  const fields = Object.entries(o)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${formatValue(v)}`)
    .join(' ');
  const head = opts.color ? `\x1b[${level.color}m${name}\x1b[0m` : name;
  return `${time} ${head} ${String(o.msg ?? '')}${fields ? `  ${fields}` : ''}\n`;
}

function formatValue(v: unknown): string {
  if (typeof v === 'string') return /^[\w./:@+-]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}

/** A pino destination that writes readable lines to `out`. */
export function prettyDestination(
  out: { write(chunk: string): unknown },
  opts: PrettyOptions,
): { write(line: string): void } {
  return {
    write(line: string) {
      // On a terminal a progress line may be drawn: clear it; the progress redraws itself on its next update.
      out.write((opts.color ? '\r\x1b[K' : '') + prettyLine(line, opts));
    },
  };
}
