// Logs for a person at a terminal: readable lines, secrets still redacted; JSON lines everywhere else.
import { describe, expect, it } from 'vitest';
import { createLogger, registerSecret } from '../../src/log/logger.ts';
import { prettyLine } from '../../src/log/pretty.ts';

function capture(isTTY: boolean): { lines: string[]; stream: { isTTY: boolean; write(s: string): boolean } } {
  const lines: string[] = [];
  return { lines, stream: { isTTY, write: (s: string) => lines.push(s) > 0 } };
}

describe('log format', () => {
  it('renders a pino line as time, level, message and key=value pairs', () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.UTC(2026, 0, 2, 3, 4, 5),
      name: 'offersync',
      msg: 'offer failed',
      kind: 'item',
      externalId: 'item 7',
      n: 3,
    });
    expect(prettyLine(line, { color: false })).toBe('03:04:05 WARN  offer failed  kind=item externalId="item 7" n=3\n');
    expect(prettyLine('not json\n', { color: false })).toBe('not json\n');
  });

  it('is readable on a terminal, JSON elsewhere or when asked, and redacts the same either way', () => {
    registerSecret('pretty-secret-key-99');
    const tty = capture(true);
    createLogger({ destination: tty.stream }).warn({ password: 'hunter2', note: 'pretty-secret-key-99' }, 'careful');
    expect(tty.lines.join('')).toMatch(/WARN.*careful {2}password="\[REDACTED\]" note="\[REDACTED\]"/);
    expect(tty.lines.join('')).not.toContain('hunter2');

    const pipe = capture(false);
    createLogger({ destination: pipe.stream }).info({ a: 1 }, 'plain');
    expect(JSON.parse(pipe.lines[0]!)).toMatchObject({ msg: 'plain', a: 1 });

    const forced = capture(true);
    createLogger({ destination: forced.stream, format: 'json' }).info('machine');
    expect(JSON.parse(forced.lines[0]!)).toMatchObject({ msg: 'machine' });
  });
});
