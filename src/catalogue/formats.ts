// Turns a catalogue file into raw records (plain objects, not yet checked) with where each came from: the
// dispatch to each text format's reader (formats/), and the text decoding they share. Spreadsheets, which are
// not text, are read by formats/sheet.ts.
import { textMayHoldForbiddenKey } from '../input/forbidden-keys.ts';
import type { TextFormat } from './layout.ts';
import { streamCsv } from './formats/csv.ts';
import { parseJson } from './formats/json.ts';
import { streamNdjson } from './formats/ndjson.ts';
import {
  wholeStream,
  type ParsedFile,
  type ParseEnd,
  type ParseOptions,
  type RawRecord,
  type RecordStream,
} from './formats/parsed-file.ts';
import { parseYaml } from './formats/yaml.ts';

/** The text of a file, and the encoding it was read in when not UTF-8; or why it is not text. */
export function decodeText(
  buf: Uint8Array,
  format?: TextFormat,
): { text: string; encoding?: 'windows-1252' } | { error: string } {
  const probe = buf.subarray(0, 8192);
  if (probe.includes(0)) return { error: 'this is a binary file, not text: a catalogue file must be UTF-8 text' };
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buf);
    return { text };
  } catch {
    // Excel's plain "CSV" choice writes the Windows code page of Western Europe: read it as that, unless a byte
    // Windows-1252 leaves undefined says it is something else.
    if (format === 'csv' && !buf.some((b) => WINDOWS_1252_UNDEFINED.has(b))) {
      return { text: new TextDecoder('windows-1252').decode(buf), encoding: 'windows-1252' };
    }
    return { error: 'not valid UTF-8 text: save the file as UTF-8' };
  }
}

/** Bytes Windows-1252 gives no character. */
const WINDOWS_1252_UNDEFINED: ReadonlySet<number> = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

export function streamFile(format: TextFormat, text: string, options: ParseOptions = {}): RecordStream {
  const stream = streamFormat(format, text, options);
  return textMayHoldForbiddenKey(text) ? stream : { ...stream, records: keysChecked(stream.records) };
}

function* keysChecked(records: Generator<RawRecord, ParseEnd, undefined>): Generator<RawRecord, ParseEnd, undefined> {
  for (let step = records.next(); ; step = records.next()) {
    if (step.done) return step.value;
    yield { ...step.value, keysChecked: true };
  }
}

function streamFormat(format: TextFormat, text: string, options: ParseOptions): RecordStream {
  switch (format) {
    case 'json':
      return wholeStream(parseJson(text));
    case 'ndjson':
      return streamNdjson(text);
    case 'csv':
      return streamCsv(text, options);
    case 'yaml':
      return wholeStream(parseYaml(text));
    default:
      return format satisfies never;
  }
}

/** A whole file's records. */
export function parseFile(format: TextFormat, text: string, options: ParseOptions = {}): ParsedFile {
  const stream = streamFile(format, text, options);
  const records: RawRecord[] = [];
  let step = stream.records.next();
  for (; !step.done; step = stream.records.next()) records.push(step.value);
  const end = step.value;
  if (end.void) return { records: [], problems: end.problems, unreadable: end.unreadable };
  return {
    records,
    ...(stream.kind ? { kind: stream.kind } : {}),
    problems: end.problems,
    unreadable: end.unreadable,
    ...(end.explicitlyEmpty ? { explicitlyEmpty: true as const } : {}),
    ...(stream.locate ? { locate: stream.locate } : {}),
    ...(end.csv ? { csv: end.csv } : {}),
  };
}
