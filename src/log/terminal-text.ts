// Text for a terminal. What offersync prints carries data (file names, external_ids, a file's or a server's
// messages) that may hold control characters: an ESC sequence that retitles the window or clears the screen, a
// CR that overwrites a line, a newline that forges a `file:line: error:` line. They are shown as escapes
// (\x1b, \n, \u009b) and never reach the terminal raw; the only control sequences a terminal gets are
// offersync's own (colours, clearing a progress line), made here from styled parts, never from data.
//
// Every human printer goes through this file: a line-based printer escapes its lines (`escapeLines`), a
// printer with colours renders styled parts (`terminalLines`, `terminalLine`), and the CLI wraps stdout and
// stderr (`terminalStream`) so that anything else written is escaped too (newlines kept: the printers' own).

/**
 * C0 and C1 controls, DEL, the line and paragraph separators and the bidirectional overrides and isolates
 * (which reorder what a line shows).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what it is for
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what it is for
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * One control character as a person can read it: C0 as \xHH (ESC is \x1b), the others as \uHHHH. JSON never
 * holds a raw C0 character, so escaping a JSON text (--json, JSON log lines) only ever writes \uHHHH into it,
 * which keeps it valid JSON with the same value.
 */
function visible(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0x1f ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Every control character shown as an escape, newlines included: a value printed within one line. */
export function oneLine(text: string): string {
  return text.replace(CONTROL, visible);
}

/** Every control character shown as an escape but the newline: text whose line breaks the printer wrote. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL_BUT_NEWLINE, visible);
}

/** Lines as a printer made them, each escaped whole (a newline inside one is data), one per output line. */
export function escapeLines(lines: readonly string[]): string {
  return lines.map((l) => `${oneLine(l)}\n`).join('');
}

/** Text in a colour (an SGR parameter: '31' red, '1' bold), shown plain where colours are off. */
export interface Styled {
  readonly sgr: string;
  readonly text: string;
}

export const styled = (sgr: string, text: string): Styled => ({ sgr, text });

export type LinePart = string | Styled;
export type Line = LinePart | readonly LinePart[];

/** Output for a terminal made by this file only: its data escaped, its control sequences offersync's own. */
export class TerminalText {
  readonly #text: string;

  private constructor(text: string) {
    this.#text = text;
  }

  /** @internal */
  static of(text: string): TerminalText {
    return new TerminalText(text);
  }

  get text(): string {
    return this.#text;
  }

  toString(): string {
    return this.#text;
  }
}

const CLEAR_LINE = '\r\x1b[K';

function render(line: Line, colour: boolean): string {
  const parts: readonly LinePart[] = Array.isArray(line) ? line : [line as LinePart];
  let out = '';
  for (const p of parts) {
    if (typeof p === 'string') out += oneLine(p);
    else out += colour ? `\x1b[${p.sgr}m${oneLine(p.text)}\x1b[0m` : oneLine(p.text);
  }
  return out;
}

/** Lines with styled parts, each ended by a newline; colours only when `colour`. */
export function terminalLines(lines: readonly Line[], colour: boolean): TerminalText {
  return TerminalText.of(lines.map((l) => `${render(l, colour)}\n`).join(''));
}

export interface LineOptions {
  readonly colour: boolean;
  /** First move to the start of the line and clear it (a progress line drawn there), on a terminal only. */
  readonly clearLine?: boolean;
  /** End the line; without, it is a progress line redrawn in place. */
  readonly newline?: boolean;
}

/** One line with styled parts. */
export function terminalLine(line: Line, opts: LineOptions): TerminalText {
  return TerminalText.of(`${opts.clearLine ? CLEAR_LINE : ''}${render(line, opts.colour)}${opts.newline ? '\n' : ''}`);
}

const RAW_WRITE = Symbol('offersync terminal raw write');

interface Writable {
  write(chunk: string): unknown;
}

/** Writes offersync's terminal output as it is: on a terminal stream unescaped, on any other stream as text. */
export function writeTerminal(stream: Writable, t: TerminalText): void {
  const raw = (stream as { [RAW_WRITE]?: (text: string) => unknown })[RAW_WRITE];
  if (raw) raw(t.text);
  else stream.write(t.text);
}

/**
 * The stream with every string written to it escaped (newlines kept) and passed through `scrub` (the secret
 * scrubber); TerminalText written by writeTerminal goes out scrubbed only. Everything else is the stream's own.
 */
export function terminalStream<S extends object>(stream: S, scrub: (text: string) => string = (t) => t): S {
  const target = stream as S & { write(chunk: unknown, ...rest: unknown[]): boolean };
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    const text = String(chunk); // a Buffer's string is its UTF-8 text
    return target.write(escapeControls(scrub(text)), ...rest);
  };
  const raw = (text: string): unknown => target.write(scrub(text));
  return new Proxy(target, {
    get(t, prop) {
      if (prop === 'write') return write;
      if (prop === RAW_WRITE) return raw;
      const v = Reflect.get(t, prop, t) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}
