// Readable log lines for a person at a terminal: `12:03:04 WARN  offer failed  kind=item externalId="a b"`.
// pino still builds each JSON line (redaction and the secret scrub included); this only renders it again.
import { type LinePart, styled, type TerminalText, terminalLine, writeTerminal } from './terminal-text.ts';

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

/** The parts of one pino JSON line as a person reads it; undefined for a line that is not JSON. */
function prettyParts(line: string): LinePart[] | undefined {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const time = typeof o.time === 'number' ? new Date(o.time).toISOString().slice(11, 19) : '';
  const level = LEVELS[Number(o.level)] ?? { name: String(o.level), color: '0' };
  const fields = Object.entries(o)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${formatValue(v)}`)
    .join(' ');
  return [
    `${time} `,
    styled(level.color, level.name.padEnd(5)),
    ` ${String(o.msg ?? '')}${fields ? `  ${fields}` : ''}`,
  ];
}

/**
 * One pino JSON line as a person reads it, its data's control characters escaped (terminal-text.ts); a line that
 * is not JSON comes back as it was, but escaped too.
 */
export function prettyLine(line: string, opts: PrettyOptions): string {
  return render(line, opts, false).text;
}

function render(line: string, opts: PrettyOptions, clearLine: boolean): TerminalText {
  const parts = prettyParts(line);
  if (parts) return terminalLine(parts, { colour: opts.color, clearLine, newline: true });
  const text = line.endsWith('\n') ? line.slice(0, -1) : line;
  return terminalLine(text, { colour: false, clearLine, newline: line.endsWith('\n') });
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
      writeTerminal(out, render(line, opts, opts.color));
    },
  };
}
