// Terminal text: control characters shown as escapes, styles only from styled parts, the wrapped stream escaping
// what is written to it and passing offersync's own terminal text.
import { describe, expect, it } from 'vitest';
import {
  escapeControls,
  escapeLines,
  oneLine,
  styled,
  terminalLine,
  terminalLines,
  terminalStream,
  writeTerminal,
} from '../../src/log/terminal-text.ts';

describe('oneLine', () => {
  it.each([
    ['ESC (an OSC title change, a screen clear)', '\x1b]0;t\x07\x1b[2J', '\\x1b]0;t\\x07\\x1b[2J'],
    ['newline, CR, tab', 'a\nb\rc\td', 'a\\nb\\rc\\td'],
    ['NUL and other C0', '\x00\x08\x1f', '\\x00\\x08\\x1f'],
    ['DEL', 'a\x7fb', 'a\\u007fb'],
    ['C1 (CSI)', '\u009b2J', '\\u009b2J'],
    ['a bidirectional override', 'abc\u202edef', 'abc\\u202edef'],
    ['the first override and an isolate', '\u202ax\u2066y\u2069', '\\u202ax\\u2066y\\u2069'],
    ['the line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['the last C1', 'a\u009fb', 'a\\u009fb'],
    ['printable text, accents and emoji unchanged', 'Café ✓ 🎮', 'Café ✓ 🎮'],
  ])('%s', (_what, text, shown) => {
    expect(oneLine(text)).toBe(shown);
  });

  it('escapeControls keeps newlines; escapeLines escapes a newline inside a line', () => {
    expect(escapeControls('a\x1b\nb')).toBe('a\\x1b\nb');
    expect(escapeControls('\x00\t\x0b\r\x1f\x7f\u009f\u2028\u2029\u202a\u202e\u2066\u2069')).toBe(
      '\\x00\\t\\x0b\\r\\x1f\\u007f\\u009f\\u2028\\u2029\\u202a\\u202e\\u2066\\u2069',
    );
    expect(escapeControls(' ~\u00a0\u2027\u202f\u2065\u206a')).toBe(' ~\u00a0\u2027\u202f\u2065\u206a');
    expect(oneLine(' ~\u00a0\u2027\u202f\u2065\u206a')).toBe(' ~\u00a0\u2027\u202f\u2065\u206a');
    expect(escapeLines(['one\ntwo', 'three'])).toBe('one\\ntwo\nthree\n');
  });

  it('a JSON text stays JSON with the same values', () => {
    const json = JSON.stringify({ v: 'a\x1b\u009b\x7f' });
    expect(JSON.parse(escapeControls(json))).toEqual({ v: 'a\x1b\u009b\x7f' });
  });
});

describe('styled terminal text', () => {
  it('colours styled parts on a colour terminal, and escapes the text inside them', () => {
    const t = terminalLines([['  ', styled('31', 'error\x1b[2J'), ' x\ny']], true);
    expect(t.text).toBe('  \x1b[31merror\\x1b[2J\x1b[0m x\\ny\n');
    expect(terminalLines([styled('31', 'e')], false).text).toBe('e\n');
    expect(terminalLines(['one', ['two ', styled('1', '2')]], false).text).toBe('one\ntwo 2\n');
    expect(terminalLine('p', { colour: false, clearLine: true }).text).toBe('\r\x1b[Kp');
  });
});

describe('terminalStream', () => {
  function sink(): { write(s: string): boolean; isTTY: boolean; out: string } {
    const s = {
      out: '',
      isTTY: true,
      write(chunk: string) {
        s.out += chunk;
        return true;
      },
    };
    return s;
  }

  it('escapes strings written to it (newlines kept), scrubs them, and passes terminal text as made', () => {
    const raw = sink();
    const stream = terminalStream(raw, (t) => t.replaceAll('hunter2', '[REDACTED]'));
    expect(stream.isTTY).toBe(true);
    stream.write('a\x1b]0;x\x07 hunter2\nb\n');
    writeTerminal(stream, terminalLines([styled('32', 'ok')], true));
    expect(raw.out).toBe('a\\x1b]0;x\\x07 [REDACTED]\nb\n\x1b[32mok\x1b[0m\n');
  });

  it('escapes a Buffer written to it, passes the write callback on, and needs no scrubber', () => {
    const raw = {
      out: '',
      write(chunk: string, callback?: () => void) {
        raw.out += chunk;
        callback?.();
        return true;
      },
    };
    const done: string[] = [];
    const stream = terminalStream(raw);
    stream.write(Buffer.from('b\x1b[2J\n') as unknown as string, () => done.push('written'));
    (stream.write as (c: unknown) => boolean)(7);
    expect(raw.out).toBe('b\\x1b[2J\n7');
    expect(done).toEqual(['written']);
  });

  it("the stream's own methods keep their stream", () => {
    class Counting {
      lines = 0;
      write(_chunk: string): boolean {
        return true;
      }
      count(): number {
        return ++this.lines;
      }
    }
    const raw = new Counting();
    const stream = terminalStream(raw);
    const count = stream.count;
    expect(count()).toBe(1);
    expect(raw.lines).toBe(1);
  });

  it('terminal text reads as its text', () => {
    const t = terminalLine([styled('1', 'bold'), ' x'], { colour: true, newline: true });
    expect(`${t}`).toBe('\x1b[1mbold\x1b[0m x\n');
    expect(String(t)).toBe(t.text);
  });

  it('on a plain stream, terminal text is written as its text', () => {
    const raw = sink();
    writeTerminal(raw, terminalLines([styled('32', 'ok\x1b')], false));
    expect(raw.out).toBe('ok\\x1b\n');
  });
});
