// The catalogue: reads the seller's directory into canonical DesiredOffers with every problem addressed,
// keeps each file's result so that a change re-parses only that file, and tells which offers changed.
// Identity and safety rules (docs/architecture.md, Identity and Guard) live here: duplicates are errors at every
// place; a file that cannot be read whole, or holds a record without identity, is quarantined.
import { realpath } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { silentLogger, type Logger } from '../log/logger.ts';
import type { CatalogueProblem } from './catalogue-problem.ts';
import type { DesiredOffer, ImageRef, OfferKind, SourceLocation } from './desired-offer.ts';
import { decodeText, streamFile } from './formats.ts';
import type { CsvDialect, ParseOptions, RecordStream, SheetStream } from './formats/parsed-file.ts';
import { streamSheet } from './formats/sheet.ts';
import { Hmac256, credentialsHmac, offerHash } from './hash.ts';
import { catalogueRelative, checkImage, type ImageCheck } from './images.ts';
import { conflictGroup, offerKey } from './identity.ts';
import { classify, isSheetFormat } from './layout.ts';
import { normaliseRecord } from './normalise.ts';
import type { NormalisedOffer } from './normalised-offer.ts';
import { readCatalogueFile, type CatalogueFs } from './read-file.ts';
import type { SharedStrings } from './values.ts';
import { walkCatalogue } from './directory-walk.ts';

export type { CatalogueProblem } from './catalogue-problem.ts';
export type { CatalogueFs } from './read-file.ts';

export interface CatalogueOptions {
  /** The catalogue directory, absolute. */
  readonly dir: string;
  /** Key of the HMAC that stands for an offer's credentials (kept by the caller in a 0600 key file). */
  readonly credentialsKey: string | Uint8Array;
  /** Larger files are an error of that file (quarantined). Default 64 MiB. */
  readonly maxFileBytes?: number;
  /** Larger images are an error of the offer naming them. Default 8 MiB. */
  readonly maxImageBytes?: number;
  /** Default: silent. */
  readonly logger?: Logger;
  /** File system used to read offer files; tests pass one that misbehaves. Default: node:fs/promises. */
  readonly fs?: CatalogueFs;
  /** CSV delimiter and decimal mark for every CSV file (config catalogue.csv). Default: detected per file. */
  readonly csv?: ParseOptions;
}

export interface CatalogueSnapshot {
  readonly dir: string;
  /** Valid offers only; an offer with an error is left out (its file is not quarantined for it). */
  readonly offers: readonly DesiredOffer[];
  readonly problems: readonly CatalogueProblem[];
  /**
   * Files that could not be read or parsed whole, or that hold a record without a usable external_id:
   * no offer whose last known source is such a file may be archived. Their valid offers are still in offers.
   */
  readonly quarantinedFiles: readonly string[];
  /** Offers present but invalid (errors, duplicate external_ids): they must not be archived either. */
  readonly invalidOffers: readonly { kind: OfferKind; externalId: string; file: string }[];
  /** False when the directory or a folder of it could not be read: then nothing may be archived. */
  readonly complete: boolean;
  /** Catalogue-relative paths of the offer files read. */
  readonly files: readonly string[];
  /** How each CSV file was read (delimiter, decimal mark), by catalogue-relative path. */
  readonly csvDialects: readonly ({ readonly file: string } & CsvDialect)[];
}

export interface FileChanges {
  readonly added: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
}

export interface ReloadResult {
  readonly snapshot: CatalogueSnapshot;
  /** "kind:external_id" keys of valid offers that appeared, changed (hash) or disappeared. */
  readonly added: string[];
  readonly changed: string[];
  readonly removed: string[];
}

/** A record whose identity is known but which is not an offer (it has an error): the identity rules still count it. */
interface InvalidEntry {
  readonly kind: OfferKind;
  readonly externalId: string;
  readonly source: SourceLocation;
  readonly hash?: undefined;
}

/** A record with a known identity: the offer itself when valid, so that 100k offers cost no second object each. */
type Entry = DesiredOffer | InvalidEntry;

const isOffer = (e: Entry): e is DesiredOffer => e.hash !== undefined;

/** Conflict group: kind and external_id in lower case (docs/architecture.md, Identity). */
const groupOf = (e: Entry): string => conflictGroup(e.kind, e.externalId);

interface FileResult {
  readonly file: string;
  readonly entries: readonly Entry[];
  readonly problems: readonly CatalogueProblem[];
  readonly quarantined: boolean;
  /** Catalogue-relative image paths its offers name, to re-read them when an image changes. */
  readonly images: ReadonlySet<string>;
  readonly csv?: CsvDialect;
}

/** Shared by every account without images (most of them). */
const NO_IMAGES: readonly ImageRef[] = Object.freeze([]);

const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_IMAGE_BYTES = 8 * 1024 * 1024;
/** Files read between two yields to the event loop (reads are synchronous, see read-file.ts). */
const FILES_PER_TURN = 32;

function positiveInt(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isSafeInteger(v) || v <= 0)
    throw new TypeError(`Catalogue: ${name} must be a positive integer (bytes), got ${String(v)}`);
  return v;
}

/**
 * A large file's records read between two yields to the event loop: parsing is synchronous, and a file of
 * many rows or one huge row must not keep the daemon from answering its health checks.
 */
const RECORDS_PER_TURN = 1000;
const MS_PER_TURN = 20;

/** One after the other, letting timers and sockets run every few files (the daemon serves health checks). */
async function eachInTurn<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % FILES_PER_TURN === 0) await new Promise<void>((r) => setImmediate(r));
    await fn(items[i]!);
  }
}

export class Catalogue {
  private readonly dir: string;
  private readonly key: Hmac256;
  private readonly maxFileBytes: number;
  private readonly maxImageBytes: number;
  private readonly logger: Logger;
  private readonly fs: CatalogueFs | undefined;
  private readonly parseOptions: ParseOptions;

  private readonly results = new Map<string, FileResult>();
  /**
   * Entries by kind and lower-case external_id (the conflict group): one entry, or several in conflict. Keyed per
   * kind so that an external_id already in lower case is its own key, not a second string.
   */
  private readonly groups: { readonly [K in OfferKind]: Map<string, Entry | Entry[]> } = {
    account: new Map(),
    item: new Map(),
    topup: new Map(),
  };
  /** The conflict groups with more than one entry, by conflictGroup(). */
  private readonly conflicted = new Map<string, { readonly kind: OfferKind; readonly id: string }>();
  private readonly imageCache = new Map<string, Promise<ImageCheck>>();
  private sortedFiles: string[] | null = null;
  private walkProblems: CatalogueProblem[] = [];
  private complete = true;
  private rootReal: string | null = null;
  private loaded = false;
  private chain: Promise<unknown> = Promise.resolve();
  private strings: SharedStrings | undefined;

  constructor(opts: CatalogueOptions) {
    if (typeof opts.dir !== 'string' || !isAbsolute(opts.dir))
      throw new TypeError(`Catalogue: dir must be an absolute path, got ${JSON.stringify(opts.dir)}`);
    if (opts.credentialsKey === undefined || opts.credentialsKey.length === 0)
      throw new TypeError('Catalogue: credentialsKey must be a non-empty string or byte array');
    this.dir = opts.dir;
    this.key = new Hmac256(opts.credentialsKey);
    this.maxFileBytes = positiveInt('maxFileBytes', opts.maxFileBytes, DEFAULT_MAX_FILE_BYTES);
    this.maxImageBytes = positiveInt('maxImageBytes', opts.maxImageBytes, DEFAULT_MAX_IMAGE_BYTES);
    this.logger = opts.logger ?? silentLogger;
    this.fs = opts.fs;
    this.parseOptions = opts.csv ?? {};
  }

  /** Reads the whole directory afresh; onFile tells how many offer files are read so far, of how many. */
  load(onFile?: (done: number, total: number) => void): Promise<CatalogueSnapshot> {
    return this.serial(() => this.doLoad(onFile));
  }

  /** Re-parses only the files named (and those naming a changed image); says which offers changed. */
  reload(changes: FileChanges): Promise<ReloadResult> {
    return this.serial(() => this.doReload(changes));
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    // Equal strings of the offers read in one load (or reload) are kept once; the table goes with it.
    const withStrings = async (): Promise<T> => {
      this.strings = new Map();
      try {
        return await fn();
      } finally {
        this.strings = undefined;
      }
    };
    const run = this.chain.then(withStrings, withStrings);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async doLoad(onFile?: (done: number, total: number) => void): Promise<CatalogueSnapshot> {
    const started = performance.now();
    this.results.clear();
    for (const g of Object.values(this.groups)) g.clear();
    this.conflicted.clear();
    this.imageCache.clear();
    this.sortedFiles = null;
    this.walkProblems = [];
    this.loaded = true;
    try {
      this.rootReal = await realpath(this.dir);
    } catch (err) {
      this.rootReal = null;
      this.complete = false;
      const code = (err as NodeJS.ErrnoException).code;
      this.walkProblems = [
        {
          severity: 'error',
          file: '.',
          message:
            `cannot read the catalogue directory ${this.dir} (${code ?? (err as Error).message}): nothing ` +
            `is archived until it can be read`,
        },
      ];
      return this.build();
    }
    const walk = await walkCatalogue(this.dir, this.rootReal, this.logger);
    this.complete = walk.complete;
    this.walkProblems = walk.problems;
    for (const bad of walk.badFiles) this.put(quarantinedResult(bad.file, 'error', bad.message));
    let read = 0;
    onFile?.(0, walk.files.length);
    await eachInTurn(walk.files, async (file) => {
      const r = await this.processFile(file, false);
      if (r) this.put(r);
      onFile?.(++read, walk.files.length);
    });
    const snapshot = this.build();
    this.logger.debug(
      {
        files: snapshot.files.length,
        offers: snapshot.offers.length,
        problems: snapshot.problems.length,
        ms: Math.round(performance.now() - started),
      },
      'catalogue loaded',
    );
    return snapshot;
  }

  private async doReload(changes: FileChanges): Promise<ReloadResult> {
    if (!this.loaded || this.rootReal === null) {
      const snapshot = await this.doLoad();
      return { snapshot, added: snapshot.offers.map((o) => offerKey(o.kind, o.externalId)), changed: [], removed: [] };
    }
    const toRemove = new Set<string>();
    const toRead = new Set<string>();
    const images = new Set<string>();
    const norm = (p: string): string => catalogueRelative(p) ?? p;
    for (const raw of changes.removed) {
      const rel = norm(raw);
      if (this.results.has(rel)) toRemove.add(rel);
      else for (const f of this.results.keys()) if (f.startsWith(`${rel}/`)) toRemove.add(f); // a removed folder
      if (classify(rel).type === 'image') images.add(rel);
      else for (const img of this.imageCache.keys()) if (img.startsWith(`${rel}/`)) images.add(img);
    }
    for (const raw of [...changes.added, ...changes.changed]) {
      const rel = norm(raw);
      const c = classify(rel);
      if (c.type === 'offers') {
        toRead.add(rel);
        toRemove.delete(rel);
      } else if (c.type === 'image') images.add(rel);
      else this.logger.debug({ file: rel }, 'catalogue: change ignored');
    }
    if (images.size > 0) {
      for (const img of images) this.imageCache.delete(img);
      for (const [file, r] of this.results) {
        if (toRemove.has(file)) continue;
        for (const img of images) if (r.images.has(img)) toRead.add(file);
      }
    }

    // Read first (I/O), then swap the results in at once, so the before/after picture is exact.
    const fresh = new Map<string, FileResult | null>();
    await eachInTurn([...toRead], async (file) => {
      fresh.set(file, await this.processFile(file, true));
    });
    const touched = new Map<string, { kind: OfferKind; id: string }>();
    const touch = (e: Entry): void => {
      touched.set(groupOf(e), { kind: e.kind, id: e.externalId.toLowerCase() });
    };
    for (const file of [...toRemove, ...toRead]) for (const e of this.results.get(file)?.entries ?? []) touch(e);
    for (const r of fresh.values()) for (const e of r?.entries ?? []) touch(e);
    const before = this.validIn(touched);
    for (const file of toRemove) this.drop(file);
    for (const [file, r] of fresh) {
      if (r) this.put(r);
      else this.drop(file);
    }
    const after = this.validIn(touched);
    const added: string[] = [];
    const changed: string[] = [];
    const removed: string[] = [];
    for (const [key, hash] of after) {
      const was = before.get(key);
      if (was === undefined) added.push(key);
      else if (was !== hash) changed.push(key);
    }
    for (const key of before.keys()) if (!after.has(key)) removed.push(key);
    return { snapshot: this.build(), added, changed, removed };
  }

  /** key -> hash of the valid offers of these conflict groups. */
  private validIn(groups: ReadonlyMap<string, { kind: OfferKind; id: string }>): Map<string, string> {
    const out = new Map<string, string>();
    for (const { kind, id } of groups.values()) {
      const e = this.groups[kind].get(id);
      if (e && !Array.isArray(e) && isOffer(e)) out.set(offerKey(e.kind, e.externalId), e.hash);
    }
    return out;
  }

  private put(r: FileResult): void {
    this.drop(r.file);
    this.results.set(r.file, r);
    this.sortedFiles = null;
    for (const e of r.entries) {
      const byId = this.groups[e.kind];
      const id = e.externalId.toLowerCase();
      const had = byId.get(id);
      if (had === undefined) byId.set(id, e);
      else {
        byId.set(id, Array.isArray(had) ? [...had, e] : [had, e]);
        this.conflicted.set(groupOf(e), { kind: e.kind, id });
      }
    }
  }

  private drop(file: string): void {
    const old = this.results.get(file);
    if (!old) return;
    this.results.delete(file);
    this.sortedFiles = null;
    for (const e of old.entries) {
      const byId = this.groups[e.kind];
      const id = e.externalId.toLowerCase();
      const had = byId.get(id);
      if (had === undefined) continue;
      const rest = Array.isArray(had) ? had.filter((x) => x !== e) : had === e ? [] : [had];
      if (rest.length === 0) byId.delete(id);
      else byId.set(id, rest.length === 1 ? rest[0]! : rest);
      if (rest.length <= 1) this.conflicted.delete(groupOf(e));
    }
  }

  private entriesOf(kind: OfferKind, id: string): readonly Entry[] {
    const e = this.groups[kind].get(id);
    return e === undefined ? [] : Array.isArray(e) ? e : [e];
  }

  /** One file to its result; null when the path is not an offer file. */
  private async processFile(file: string, fromWatcher: boolean): Promise<FileResult | null> {
    const c = classify(file);
    if (c.type !== 'offers') return null;
    const read = readCatalogueFile(this.dir, this.rootReal!, file, this.maxFileBytes, {
      checkRealpath: fromWatcher,
      ...(this.fs ? { fs: this.fs } : {}),
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
      parsed = streamSheet(c.format, read.buf, { kind: c.kind, maxUnpackedBytes: this.maxFileBytes });
    else {
      const decoded = decodeText(read.buf, c.format);
      if ('error' in decoded) return quarantinedResult(file, 'error', decoded.error);
      encoding = decoded.encoding;
      parsed = streamFile(c.format, decoded.text, { ...this.parseOptions, kind: c.kind });
    }
    const kind = parsed.kind ?? c.kind;
    /** The records' problems; the file's own come first, once it is read. */
    let problems: CatalogueProblem[] = [];
    let entries: Entry[] = [];
    let images = new Set<string>();
    let unknownIdentity = false;
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
      const n = normaliseRecord(kind, record, file, parsed.locate, this.strings);
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
        const checks = await Promise.all(imagePaths.map((img) => this.image(img.path)));
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
      entries.push(this.offer(n.offer, refs, source));
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
      quarantined: end.unreadable || unknownIdentity,
      images,
      ...(end.csv ? { csv: end.csv } : {}),
    };
  }

  private image(written: string): Promise<ImageCheck> {
    const rel = catalogueRelative(written) ?? written;
    let p = this.imageCache.get(rel);
    if (!p) {
      p = checkImage(this.dir, this.rootReal!, written, this.maxImageBytes);
      this.imageCache.set(rel, p);
    }
    return p;
  }

  /** The normalised offer with what needs I/O or the key: its checked images, its HMAC and content hash. */
  private offer(n: NormalisedOffer, images: readonly ImageRef[], source: SourceLocation): DesiredOffer {
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
        const hmac = credentialsHmac(this.key, credentials);
        return { kind, externalId, hash: hash(hmac), source, fields, credentials, credentialsHmac: hmac, images };
      }
      case 'item':
        return { kind: n.kind, externalId: n.externalId, hash: hash(), source, fields: n.fields };
      case 'topup':
        return { kind: n.kind, externalId: n.externalId, hash: hash(), source, fields: n.fields };
      default:
        return n satisfies never;
    }
  }

  private build(): CatalogueSnapshot {
    if (!this.sortedFiles) this.sortedFiles = [...this.results.keys()].sort();
    const offers: DesiredOffer[] = [];
    const problems: CatalogueProblem[] = [...this.walkProblems];
    const quarantinedFiles: string[] = [];
    const invalidOffers: { kind: OfferKind; externalId: string; file: string }[] = [];
    const csvDialects: ({ file: string } & CsvDialect)[] = [];
    const anyConflict = this.conflicted.size > 0;
    for (const file of this.sortedFiles) {
      const r = this.results.get(file)!;
      if (r.csv) csvDialects.push({ file, ...r.csv });
      for (const p of r.problems) problems.push(p);
      if (r.quarantined) quarantinedFiles.push(file);
      for (const e of r.entries) {
        if (isOffer(e) && !(anyConflict && this.conflicted.has(groupOf(e)))) offers.push(e);
        else invalidOffers.push({ kind: e.kind, externalId: e.externalId, file });
      }
    }
    for (const g of [...this.conflicted.keys()].sort()) {
      const { kind, id } = this.conflicted.get(g)!;
      problems.push(...duplicateProblems(this.entriesOf(kind, id)));
    }
    return {
      dir: this.dir,
      offers,
      problems,
      quarantinedFiles,
      invalidOffers,
      complete: this.complete,
      files: this.sortedFiles,
      csvDialects,
    };
  }
}

function quarantinedResult(file: string, severity: 'error' | 'warning', message: string): FileResult {
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

function where(s: SourceLocation): string {
  return s.line !== undefined ? `${s.file}:${s.line}` : s.pointer ? `${s.file}#${s.pointer}` : s.file;
}

function duplicateProblems(entries: readonly Entry[]): CatalogueProblem[] {
  return entries.map((e) => {
    const others = entries.filter((o) => o !== e);
    const exact = others.filter((o) => o.externalId === e.externalId);
    const near = others.filter((o) => o.externalId !== e.externalId);
    const parts: string[] = [];
    if (exact.length > 0)
      parts.push(`duplicate external_id '${e.externalId}': also at ${exact.map((o) => where(o.source)).join(', ')}`);
    if (near.length > 0) {
      parts.push(
        `external_id '${e.externalId}' differs only in letter case from ` +
          `${near.map((o) => `'${o.externalId}' at ${where(o.source)}`).join(', ')}, and the marketplace may take ` +
          `them as one`,
      );
    }
    return {
      severity: 'error' as const,
      file: e.source.file,
      ...(e.source.line !== undefined ? { line: e.source.line } : {}),
      ...(e.source.pointer !== undefined ? { pointer: `${e.source.pointer}/external_id` } : {}),
      kind: e.kind,
      externalId: e.externalId,
      field: 'external_id',
      message: `${parts.join('; ')}: each ${e.kind} needs its own external_id (none of them is synced until fixed)`,
    };
  });
}
