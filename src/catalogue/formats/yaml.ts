// YAML catalogue files: one offer, a list, {kind?, offers}, or several documents. The common simple shape is
// read by ../yaml-simple.ts; anything else by yaml's parser, whose positions also place every problem.
import { Composer, LineCounter, Parser, isMap, isSeq, type CST, type Document, type Node as YamlNode } from 'yaml';
import type { OfferKind } from '../desired-offer.ts';
import type { TextPosition } from '../text-position.ts';
import { simpleYamlRecords } from '../yaml-simple.ts';
import type { Locator, ParsedFile, ParseProblem, PathInRecord, RawRecord } from './parsed-file.ts';
import { recordsOf } from './top-level.ts';

export function parseYaml(text: string): ParsedFile {
  const records = simpleYamlRecords(text);
  // No record: yaml's parser tells an explicit empty list (`offers: []`) from an empty or half-saved file.
  if (!records || records.length === 0) return parseYamlFully(text);
  // Places are only asked for problems: then yaml reads the file again, for the same answers as above.
  let full: ParsedFile | undefined;
  const locate: Locator = (record, path) => {
    full ??= parseYamlFully(text);
    return full.locate?.(record, path);
  };
  return { records, problems: [], unreadable: false, locate };
}

/** A YAML file read by yaml's parser, whatever its shape: what simple files skip (yaml-simple.ts). */
export function parseYamlFully(text: string): ParsedFile {
  const out = { records: [] as RawRecord[], problems: [] as ParseProblem[] };
  const lineCounter = new LineCounter();
  let docs: Document.Parsed[];
  try {
    // yaml's parser keeps its own stack, its composer recurses: check the depth between the two.
    const tokens = [...new Parser(lineCounter.addNewLine).parse(text)];
    const deep = tooDeep(tokens, MAX_YAML_NESTING);
    if (deep !== undefined) {
      const at = lineCounter.linePos(deep);
      out.problems.push({
        severity: 'error',
        message: `not valid YAML for a catalogue: lists or maps nested more than ${MAX_YAML_NESTING} levels deep`,
        line: at.line,
        column: at.col,
      });
      return { ...out, unreadable: true };
    }
    docs = [...new Composer({ prettyErrors: false }).compose(tokens)] as Document.Parsed[];
  } catch (err) {
    out.problems.push({ severity: 'error', message: `not valid YAML: ${(err as Error).message}`, line: 1 });
    return { ...out, unreadable: true };
  }
  let unreadable = false;
  let explicitlyEmpty = false;
  let kind: OfferKind | undefined;
  for (let d = 0; d < docs.length; d++) {
    const doc = docs[d]!;
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      const at = e.linePos?.[0] ?? lineCounter.linePos(e.pos[0]);
      out.problems.push({
        severity: 'error',
        message: `not valid YAML: ${e.message.split('\n')[0]}`,
        line: at.line,
        column: at.col,
      });
      unreadable = true;
      continue;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      out.problems.push({
        severity: 'error',
        message: `not valid YAML: ${(err as Error).message}`,
        line: lineCounter.linePos(doc.range[0]).line,
      });
      unreadable = true;
      continue;
    }
    const positionOf = (path: PathInRecord): TextPosition | undefined => yamlPosition(doc, lineCounter, path);
    const r = recordsOf(value, out, positionOf, d);
    if (r.unreadable) unreadable = true;
    if (r.explicitlyEmpty) explicitlyEmpty = true;
    if (r.kind) {
      if (kind && kind !== r.kind) {
        out.problems.push({
          severity: 'error',
          message: `the documents of this file give different kinds (${kind}, ${r.kind}): one file holds one kind`,
          line: lineCounter.linePos(doc.range[0]).line,
          field: 'kind',
        });
        unreadable = true;
      }
      kind = r.kind;
    }
  }
  const locate: Locator = (record, path) => {
    const doc = docs[record.doc ?? 0];
    if (!doc || record.pointer === undefined) return undefined;
    return yamlPosition(doc, lineCounter, [...pointerPath(record.pointer), ...path]);
  };
  return {
    ...out,
    ...(kind ? { kind } : {}),
    unreadable,
    ...(explicitlyEmpty ? { explicitlyEmpty: true as const } : {}),
    locate,
  };
}

function pointerPath(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Position of the YAML node at `path`, else of its nearest enclosing node (a missing field: the record). */
function yamlPosition(doc: Document.Parsed, lc: LineCounter, path: PathInRecord): TextPosition | undefined {
  let node: unknown = doc.contents;
  for (const p of path) {
    const next: unknown = isSeq(node) ? node.get(Number(p), true) : isMap(node) ? node.get(p, true) : undefined;
    if (next === undefined || next === null) break;
    node = next;
  }
  const range = (node as YamlNode | null | undefined)?.range;
  if (!range) return undefined;
  const at = lc.linePos(range[0]);
  return { line: at.line, column: at.col };
}

/**
 * A catalogue needs a few levels. Hundreds of nested lists or maps overflow the stack in yaml's composer,
 * and near that point V8 can abort the whole process while compiling a regular expression (fuzzing found
 * it with 100,000 '[': "RegExpCompiler Allocation failed"), so such a file is refused before composing.
 */
const MAX_YAML_NESTING = 64;

/** Offset of the first collection nested deeper than the limit, walking the CST with a stack of its own. */
function tooDeep(tokens: readonly CST.Token[], limit: number): number | undefined {
  const stack: { token: CST.Token | undefined; depth: number }[] = tokens.map((token) => ({ token, depth: 0 }));
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    if (!token) continue;
    if (token.type === 'document') stack.push({ token: token.value, depth });
    else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth >= limit) return token.offset;
      for (const item of token.items) {
        if ('key' in item) stack.push({ token: item.key ?? undefined, depth: depth + 1 });
        stack.push({ token: item.value, depth: depth + 1 });
      }
    }
  }
  return undefined;
}
