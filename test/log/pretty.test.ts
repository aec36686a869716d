// Logs for a person at a terminal: readable lines, secrets still redacted; JSON lines everywhere else.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { registerSecret } from '../../src/log/scrubber.ts';
import { prettyDestination, prettyLine } from '../../src/log/pretty.ts';

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

  it('gives back a line that is not JSON as it was, its own newline or none, escaped', () => {
    expect(prettyLine('not json', { color: true })).toBe('not json');
    expect(prettyLine('not\x1b[2J json\r\n', { color: true })).toBe('not\\x1b[2J json\\r\n');
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

  it.each([
    [10, 'TRACE', '90'],
    [20, 'DEBUG', '36'],
    [30, 'INFO ', '32'],
    [40, 'WARN ', '33'],
    [50, 'ERROR', '31'],
    [60, 'FATAL', '35'],
  ])('names level %i %s, coloured %s on a terminal', (level, name, color) => {
    const line = JSON.stringify({ level, time: Date.UTC(2026, 0, 2, 3, 4, 5), msg: 'm' });
    expect(prettyLine(line, { color: false })).toBe(`03:04:05 ${name} m\n`);
    expect(prettyLine(line, { color: true })).toBe(`03:04:05 \x1b[${color}m${name}\x1b[0m m\n`);
  });

  it('shows a level it does not know by its number, uncoloured, and a line without time or message', () => {
    expect(prettyLine(JSON.stringify({ level: 35, msg: 'custom' }), { color: true })).toBe(
      ' \x1b[0m35   \x1b[0m custom\n',
    );
    expect(prettyLine(JSON.stringify({ level: 30, a: 1 }), { color: false })).toBe(' INFO    a=1\n');
  });

  it('hides the fields every pino line has (pid, hostname, name) and shows the rest', () => {
    const line = JSON.stringify({ level: 30, time: 0, pid: 42, hostname: 'h', name: 'offersync', msg: 'm', k: 'v' });
    expect(prettyLine(line, { color: false })).toBe('00:00:00 INFO  m  k=v\n');
  });

  it('writes a plain word as it is and anything else as JSON', () => {
    const line = JSON.stringify({
      level: 30,
      time: 0,
      msg: 'm',
      path: 'items/a-1.ndjson',
      url: 'https://x.example:8443/a',
      email: 'seller+eu@x.example',
      spaced: 'two words',
      ids: ['a'],
      err: { type: 'Error', message: 'boom' },
      ok: true,
      none: null,
      n: 1.5,
    });
    expect(prettyLine(line, { color: false })).toBe(
      '00:00:00 INFO  m  path=items/a-1.ndjson url=https://x.example:8443/a email=seller+eu@x.example ' +
        'spaced="two words" ids=["a"] ' +
        'err={"type":"Error","message":"boom"} ok=true none=null n=1.5\n',
    );
  });

  it('shows control characters of a message and of a value as escapes, never raw', () => {
    const line = JSON.stringify({ level: 40, time: 0, msg: 'offer failed\x1b]0;t\x07\nforged', id: 'a\u009b2J\x7f' });
    expect(prettyLine(line, { color: true })).toBe(
      '00:00:00 \x1b[33mWARN \x1b[0m offer failed\\x1b]0;t\\x07\\nforged  id="a\\u009b2J\\u007f"\n',
    );
  });

  it('clears a progress line before each line on a terminal, and not elsewhere', () => {
    const line = JSON.stringify({ level: 30, time: 0, msg: 'm' });
    const tty = capture(true);
    prettyDestination(tty.stream, { color: true }).write(line);
    expect(tty.lines).toEqual(['\r\x1b[K00:00:00 \x1b[32mINFO \x1b[0m m\n']);
    const file = capture(false);
    prettyDestination(file.stream, { color: false }).write(line);
    expect(file.lines).toEqual(['00:00:00 INFO  m\n']);
  });

  it('is readable without colours when asked for on a destination that is not a terminal', () => {
    const file = capture(false);
    createLogger({ destination: file.stream, format: 'pretty' }).error({ n: 1 }, 'to a file');
    expect(file.lines).toHaveLength(1);
    expect(file.lines[0]).toMatch(/^\d\d:\d\d:\d\d ERROR to a file {2}n=1\n$/);
  });
});
