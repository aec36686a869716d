// One catalogue file to its result: each record normalised as it is read (a large NDJSON, CSV or spreadsheet
// file's raw records are never all held), its images checked, each valid offer hashed into a DesiredOffer, and
// the file quarantined when it cannot be read whole or holds a record without identity (docs/architecture.md,
// Guard).
import type { CatalogueProblem } from './catalogue-problem.ts';
import type { Entry } from './conflict-index.ts';
import type { DesiredOffer, ImageRef, SourceLocation } from './desired-offer.ts';
import { decodeText, streamFile } from './formats.ts';
import type { CsvDialect, ParseOptions, RecordStream, SheetStream } from './formats/parsed-file.ts';
import { streamSheet } from './formats/sheet.ts';
import { accountFingerprint } from './account-fingerprint.ts';
import { credentialsHmac, type Hmac256, offerHash } from './hash.ts';
import { catalogueRelative, type ImageCheck } from './image-files.ts';
import { classify, type Format, isSheetFormat } from './layout.ts';
import { normaliseRecord } from './normalise.ts';
import type { NormalisedOffer } from './normalised-offer.ts';
import { type CatalogueFs, readCatalogueFile } from './read-file.ts';
import type { SharedStrings } from './values.ts';

export interface FileResult {
  readonly file: string;
  readonly entries: readonly Entry[];
  readonly problems: readonly CatalogueProblem[];
  readonly quarantined: boolean;
  /** Catalogue-relative image paths its offers name, to re-read them when an image changes. */
  readonly images: ReadonlySet<string>;
  readonly csv?: CsvDialect;
}

/** What reading one file needs of its catalogue. */
export interface FileLoadContext {
  /** The catalogue directory, absolute, and its real path. */
  readonly dir: string;
  readonly rootReal: string;
  readonly maxFileBytes: number;
  readonly fs: CatalogueFs | undefined;
  readonly parseOptions: ParseOptions;
  /** Shares equal strings between the offers of a load (values.ts, SharedStrings). */
  readonly strings: SharedStrings | undefined;
  /** Key of the HMAC that stands for an offer's credentials. */
  readonly key: Hmac256;
  /** Key of the login fingerprint: the credentials key, or a seller group's own. */
  readonly fingerprintKey: Hmac256;
  /** An image's check, cached by the catalogue across files and loads. */
  readonly image: (written: string) => Promise<ImageCheck>;
}

/** Shared by every account without images (most of them). */
const NO_IMAGES: readonly ImageRef[] = Object.freeze([]);

/**
 * A large file's records read between two yields to the event loop: parsing is synchronous, and a file of
 * many rows or one huge row must not keep the daemon from answering its health checks.
 */
const RECORDS_PER_TURN = 1000;
const MS_PER_TURN = 20;

/** One file to its result; null when the path is not an offer file. */
export async function loadFile(file: string, fromWatcher: boolean, at: FileLoadContext): Promise<FileResult | null> {
  const c = classify(file);
  if (c.type !== 'offers') return null;
  const read = readCatalogueFile(at.dir, at.rootReal, file, at.maxFileBytes, {
    checkRealpath: fromWatcher,
    ...(at.fs ? { fs: at.fs } : {}),
  });
  if ('vanished' in read) {
    // Gone between listing and reading (an editor saving by delete-and-write): keep its offers as they
    // are for now; the watcher's "removed" follows if it is really gone.
    return quarantinedResult(
      file,
      'warning',
      'the file disappeared while being read: its offers are left as they are until it is back or reported removed',
    );
  }
  if ('error' in read) return quarantinedResult(file, 'error', read.error);
  // Each record is normalised as it is read: a large NDJSON, CSV or spreadsheet file's raw records are never
  // all held.
  let parsed: RecordStream | SheetStream;
  let encoding: string | undefined;
  if (isSheetFormat(c.format))
    parsed = streamSheet(c.format, read.buf, {
      kind: c.kind,
      maxUnpackedBytes: at.maxFileBytes,
      ...(at.parseOptions.priceUnit ? { priceUnit: at.parseOptions.priceUnit } : {}),
      ...(at.parseOptions.ignoreColumns ? { ignoreColumns: at.parseOptions.ignoreColumns } : {}),
    });
  else {
    const decoded = decodeText(read.buf, c.format);
    if ('error' in decoded) return quarantinedResult(file, 'error', decoded.error);
    encoding = decoded.encoding;
    parsed = streamFile(c.format, decoded.text, { ...at.parseOptions, kind: c.kind });
  }
  const kind = parsed.kind ?? c.kind;
  /** The records' problems; the file's own come first, once it is read. */
  let problems: CatalogueProblem[] = [];
  let entries: Entry[] = [];
  let images = new Set<string>();
  let unknownIdentity = false;
  let recordsRead = 0;
  let turnStart = performance.now();
  let recordsThisTurn = 0;
  let step = await parsed.records.next();
  for (; !step.done; step = await parsed.records.next()) {
    if (++recordsThisTurn >= RECORDS_PER_TURN || performance.now() - turnStart >= MS_PER_TURN) {
      await new Promise<void>((r) => setImmediate(r));
      turnStart = performance.now();
      recordsThisTurn = 0;
    }
    const record = step.value;
    recordsRead++;
    const n = normaliseRecord(kind, record, file, parsed.locate, at.strings);
    for (const p of n.problems) problems.push(p);
    if (n.externalId === undefined) {
      unknownIdentity = true;
      continue;
    }
    const source: SourceLocation =
      n.source.line !== undefined
        ? n.source.pointer !== undefined
          ? { file, line: n.source.line, pointer: n.source.pointer }
          : { file, line: n.source.line }
        : n.source.pointer !== undefined
          ? { file, pointer: n.source.pointer }
          : { file };
    const externalId = n.externalId;
    if (!n.valid) {
      entries.push({ kind, externalId, source });
      continue;
    }
    const imagePaths = n.offer.kind === 'account' ? n.offer.images : [];
    let refs = NO_IMAGES;
    let imagesOk = true;
    if (imagePaths.length > 0) {
      const found: ImageRef[] = [];
      const checks = await Promise.all(imagePaths.map((img) => at.image(img.path)));
      checks.forEach((check, i) => {
        const img = imagePaths[i]!;
        images.add(catalogueRelative(img.path) ?? img.path);
        if ('error' in check) {
          imagesOk = false;
          const at = parsed.locate?.(record, img.at);
          problems.push({
            severity: 'error',
            file,
            ...(at
              ? { line: at.line, column: at.column, ...(at.cell !== undefined ? { cell: at.cell } : {}) }
              : n.source.line !== undefined
                ? { line: n.source.line }
                : {}),
            ...(img.pointer !== undefined ? { pointer: img.pointer } : {}),
            kind,
            externalId: n.externalId!,
            field: img.field,
            message: check.error,
          });
        } else found.push(check.image);
      });
      refs = found;
    }
    if (!imagesOk) {
      entries.push({ kind, externalId, source });
      continue;
    }
    entries.push(desiredOffer(n.offer, refs, source, at.key, at.fingerprintKey));
  }
  const end = step.value;
  if (end.void) {
    // Not readable after all (a CSV file broken further down): as if no record had been read.
    problems = [];
    entries = [];
    images = new Set();
    unknownIdentity = false;
  }
  problems = [...end.problems.map((p) => ({ ...p, file, kind })), ...problems];
  if (encoding) {
    problems.unshift({
      severity: 'warning',
      file,
      kind,
      message:
        `not UTF-8: read as ${encoding === 'windows-1252' ? 'Windows-1252' : encoding}, the encoding of Excel's ` +
        'plain "CSV" choice; check its accented letters, and save it as "CSV UTF-8" to be sure of every one',
    });
  }
  const readsEmpty = !end.unreadable && !end.explicitlyEmpty && (recordsRead === 0 || end.void === true);
  if (readsEmpty) problems.push({ severity: 'warning', file, kind, message: emptyReadMessage(c.format) });
  if (unknownIdentity && !end.unreadable) {
    problems.push({
      severity: 'warning',
      file,
      kind,
      message:
        'a record of this file has no usable external_id: nothing from this file is archived until that is fixed',
    });
  }
  return {
    file,
    entries,
    problems,
    quarantined: end.unreadable || unknownIdentity || readsEmpty,
    images,
    ...(end.csv ? { csv: end.csv } : {}),
  };
}

/**
 * A file that reads empty (0 bytes, blanks, a byte-order mark, a header row alone) is most often a save in
 * progress: a shell's `>`, an editor or a sync client leaves it so for a moment. Its offers are kept as they are;
 * only deleting the file, or an explicit empty list, removes them.
 */
function emptyReadMessage(format: Format): string {
  const explicit = format === 'json' ? ', or write [] in it' : format === 'yaml' ? ', or write "offers: []" in it' : '';
  return (
    'the file reads empty (no offer in it): taken as a save in progress, so the offers it held are left as they ' +
    `are (quarantined). To remove them all, delete the file${explicit}`
  );
}

/** The normalised offer with what needs I/O or the key: its checked images, its HMAC and content hash. */
function desiredOffer(
  n: NormalisedOffer,
  images: readonly ImageRef[],
  source: SourceLocation,
  key: Hmac256,
  fingerprintKey: Hmac256,
): DesiredOffer {
  const hash = (credentialsHmac?: string) =>
    offerHash({
      kind: n.kind,
      externalId: n.externalId,
      sortedFields: n.fields,
      imageSha256s: images.map((i) => i.sha256),
      credentialsHmac,
    });
  switch (n.kind) {
    case 'account': {
      const { kind, externalId, fields, credentials } = n;
      if (!credentials) return { kind, externalId, hash: hash(), source, fields, images };
      const hmac = credentialsHmac(key, credentials);
      const loginFingerprint = accountFingerprint(fingerprintKey, credentials);
      return {
        kind,
        externalId,
        hash: hash(hmac),
        source,
        fields,
        credentials,
        credentialsHmac: hmac,
        ...(loginFingerprint !== undefined ? { loginFingerprint } : {}),
        images,
      };
    }
    case 'item':
      return { kind: n.kind, externalId: n.externalId, hash: hash(), source, fields: n.fields };
    case 'topup':
      return { kind: n.kind, externalId: n.externalId, hash: hash(), source, fields: n.fields };
    default:
      return n satisfies never;
  }
}

/** A file whose offers are not read now: they are left as they are, neither updated nor archived. */
export function quarantinedResult(file: string, severity: 'error' | 'warning', message: string): FileResult {
  const c = classify(file);
  const kind = c.type === 'offers' ? c.kind : undefined;
  return {
    file,
    entries: [],
    problems: [{ severity, file, ...(kind ? { kind } : {}), message }],
    quarantined: true,
    images: new Set(),
  };
}
