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
    ['printable text, accents and emoji unchanged', 'Café ✓ 🎮', 'Café ✓ 🎮'],
  ])('%s', (_what, text, shown) => {
    expect(oneLine(text)).toBe(shown);
  });

  it('escapeControls keeps newlines; escapeLines escapes a newline inside a line', () => {
    expect(escapeControls('a\x1b\nb')).toBe('a\\x1b\nb');
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

  it('on a plain stream, terminal text is written as its text', () => {
    const raw = sink();
    writeTerminal(raw, terminalLines([styled('32', 'ok\x1b')], false));
    expect(raw.out).toBe('ok\\x1b\n');
  });
});
