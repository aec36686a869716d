// A fast reader for the shape most YAML catalogue files have: a list of offers, each a block of `key: value`
// lines with one-line values (or one such offer alone), maybe with whole-line comments and a leading `---`.
// yaml's full parser takes about 100 µs a record (10,000 records: about a second, the largest cost of loading
// a catalogue); this reads them in a few µs. For anything outside that shape (flow or nested collections,
// block or multi-line scalars, anchors, tags, escapes, a key given twice, several documents, tabs, ...) it
// returns undefined and the file is read by yaml. Where it answers, its records are yaml's own (YAML 1.2
// core schema, as formats/yaml.ts reads them): test/catalogue/yaml-simple.test.ts checks that against yaml.
import { isForbiddenKey } from '../input/forbidden-keys.ts';
import type { RawRecord } from './formats/parsed-file.ts';

type Scalar = string | number | boolean | null;
type Offer = { [key: string]: Scalar };

// The core schema's tags, in yaml's order (yaml/dist/schema/core): the first that matches resolves the scalar.
const NULL = /^(?:~|[Nn]ull|NULL)$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
const KEY = /^[A-Za-z_$][A-Za-z0-9_.$-]{0,99}$/;

/** A plain (unquoted) scalar as the core schema resolves it; undefined when yaml should decide. */
function plainScalar(s: string): Scalar | undefined {
  if (NULL.test(s)) return null;
  if (BOOL.test(s)) return s[0] === 't' || s[0] === 'T';
  if (INT.test(s)) return Number.parseInt(s, 10);
  if (FLOAT.test(s)) return Number.parseFloat(s);
  // A letter starts a string in every schema; anything else may be an indicator, an octal or hex number, an
  // exponent, .inf: left to yaml. So are ': ' (a nested map) and '#' (a comment).
  const c = s.charCodeAt(0);
  if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 0xa0)) return undefined;
  if (s.includes(': ') || s.endsWith(':') || s.includes('#')) return undefined;
  return s;
}

/** A one-line value: plain, 'single-quoted' or "double-quoted" without escapes, with nothing after it. */
function value(s: string): Scalar | undefined {
  const q = s.charCodeAt(0);
  if (q === 34 /* " */) {
    const end = s.indexOf('"', 1);
    if (end < 0 || s.slice(end + 1).trim() !== '') return undefined;
    const inner = s.slice(1, end);
    return inner.includes('\\') ? undefined : inner;
  }
  if (q === 39 /* ' */) {
    let out = '';
    let i = 1;
    for (;;) {
      const end = s.indexOf("'", i);
      if (end < 0) return undefined;
      out += s.slice(i, end);
      if (s.charCodeAt(end + 1) === 39) {
        out += "'";
        i = end + 2;
        continue;
      }
      return s.slice(end + 1).trim() === '' ? out : undefined;
    }
  }
  return plainScalar(s);
}

/** Only printable text, no tabs, no lone CR, no BOM: what yaml reads as it is. */
function plainText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x20 && c <= 0x7e) || c === 10) continue;
    if (c === 13 && text.charCodeAt(i + 1) === 10) continue;
    if (c >= 0xa0 && c <= 0xd7ff) continue;
    if (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff) continue;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return false;
  }
  return true;
}

/** `key: value` at `at` in the line, into `obj`; false when it is not that (or the key is there already). */
function pair(line: string, at: number, obj: Offer): boolean {
  const colon = line.indexOf(':', at);
  if (colon < 0 || line.charCodeAt(colon + 1) !== 32) return false;
  const key = line.slice(at, colon);
  if (!KEY.test(key) || NULL.test(key) || BOOL.test(key) || isForbiddenKey(key) || Object.hasOwn(obj, key))
    return false;
  let end = line.length;
  while (end > colon && line.charCodeAt(end - 1) === 32) end--;
  let start = colon + 1;
  while (start < end && line.charCodeAt(start) === 32) start++;
  if (start >= end) return false;
  const v = value(line.slice(start, end));
  if (v === undefined) return false;
  obj[key] = v;
  return true;
}

/** The records of a YAML file of the simple shape, as formats/yaml.ts makes them; else undefined. */
export function simpleYamlRecords(text: string): RawRecord[] | undefined {
  if (!plainText(text)) return undefined;
  const lines = text.split('\n');
  const records: RawRecord[] = [];
  /** Column of the keys of the current offer; -1 before the first. */
  let indent = -1;
  let list: boolean | undefined;
  let current: Offer | undefined;
  let started = false;
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n]!;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    let first = 0;
    while (first < line.length && line.charCodeAt(first) === 32) first++;
    if (first === line.length || line.charCodeAt(first) === 35 /* # */) continue;
    if (!started && /^--- *$/.test(line)) {
      started = true;
      continue;
    }
    started = true;
    if (first === 0 && line.startsWith('- ')) {
      if (list === false) return undefined;
      list = true;
      let at = 2;
      while (at < line.length && line.charCodeAt(at) === 32) at++;
      current = {};
      if (!pair(line, at, current)) return undefined;
      indent = at;
      records.push({ value: current, pointer: `/${records.length}`, line: n + 1, doc: 0, fromText: true });
      continue;
    }
    if (list === undefined && first === 0) {
      list = false;
      indent = 0;
      current = {};
      records.push({ value: current, pointer: '', line: n + 1, doc: 0, fromText: true });
    }
    if (current === undefined || first !== indent || !pair(line, first, current)) return undefined;
  }
  // {kind, offers: [...]} and empty files are yaml's to read.
  if (records.length === 0 || (list === false && 'offers' in current!)) return undefined;
  return records;
}
