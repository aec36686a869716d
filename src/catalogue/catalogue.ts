// The catalogue: reads the seller's directory into canonical DesiredOffers with every problem addressed,
// keeps each file's result so that a change re-parses only that file, and tells which offers changed.
// It orders the work; one file is read by load-file.ts (which quarantines a file that cannot be read whole, or
// holds a record without identity), and duplicates across files are found by conflict-index.ts (docs/architecture.md,
// Identity and Guard).
import { realpath } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { silentLogger, type Logger } from '../log/logger.ts';
import type { CatalogueProblem } from './catalogue-problem.ts';
import { ConflictIndex, type Entry, type GroupRef, groupOf, isOffer } from './conflict-index.ts';
import type { DesiredOffer, OfferKind } from './desired-offer.ts';
import { walkCatalogue } from './directory-walk.ts';
import type { CsvDialect, ParseOptions } from './formats/parsed-file.ts';
import { Hmac256 } from './hash.ts';
import { catalogueRelative, checkImage, type ImageCheck } from './image-files.ts';
import { offerKey } from './identity.ts';
import { classify, isUnreadSpreadsheet } from './layout.ts';
import { type HeldAccount, sameAccountOffers } from './same-account.ts';
import { type FileLoadContext, type FileResult, loadFile, quarantinedResult } from './load-file.ts';
import type { CatalogueFs } from './read-file.ts';
import type { SharedStrings } from './values.ts';

export interface CatalogueOptions {
  /** The catalogue directory, absolute. */
  readonly dir: string;
  /** Key of the HMAC that stands for an offer's credentials (kept by the caller in a 0600 key file). */
  readonly credentialsKey: string | Uint8Array;
  /** Key of the login fingerprint when it is not the credentials key: a seller group's own. */
  readonly fingerprintKey?: Uint8Array;
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
  /**
   * Account offers held back because another offer sells the same account (same-account.ts), with the login
   * fingerprint they share: when one of those accounts sells, the run still knows its other offers.
   */
  readonly heldAccounts?: readonly HeldAccount[];
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
  private readonly fingerprintKey: Hmac256;
  private readonly maxFileBytes: number;
  private readonly maxImageBytes: number;
  private readonly logger: Logger;
  private readonly fs: CatalogueFs | undefined;
  private readonly parseOptions: ParseOptions;

  private readonly results = new Map<string, FileResult>();
  private readonly identities = new ConflictIndex();
  private readonly imageCache = new Map<string, Promise<ImageCheck>>();
  private sortedFiles: string[] | null = null;
  private walkProblems: CatalogueProblem[] = [];
  private complete = true;
  /** Spreadsheets offersync cannot read: while one is there, the catalogue is incomplete (nothing archived). */
  private readonly unreadSheets = new Set<string>();
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
    this.fingerprintKey = opts.fingerprintKey ? new Hmac256(opts.fingerprintKey) : this.key;
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
    this.identities.clear();
    this.imageCache.clear();
    this.sortedFiles = null;
    this.walkProblems = [];
    this.unreadSheets.clear();
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
    for (const sheet of walk.unreadSheets) this.unreadSheets.add(sheet);
    for (const bad of walk.badFiles) this.put(quarantinedResult(bad.file, 'error', bad.message));
    let read = 0;
    onFile?.(0, walk.files.length);
    await eachInTurn(walk.files, async (file) => {
      const r = await loadFile(file, false, this.fileContext());
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
      this.unreadSheets.delete(rel);
      for (const sheet of this.unreadSheets) if (sheet.startsWith(`${rel}/`)) this.unreadSheets.delete(sheet);
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
      else if (isUnreadSpreadsheet(rel)) this.unreadSheets.add(rel);
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
      fresh.set(file, await loadFile(file, true, this.fileContext()));
    });
    const touched = new Map<string, GroupRef>();
    const touch = (e: Entry): void => {
      touched.set(groupOf(e), { kind: e.kind, id: e.externalId.toLowerCase() });
    };
    for (const file of [...toRemove, ...toRead]) for (const e of this.results.get(file)?.entries ?? []) touch(e);
    for (const r of fresh.values()) for (const e of r?.entries ?? []) touch(e);
    const before = this.identities.validIn(touched);
    for (const file of toRemove) this.drop(file);
    for (const [file, r] of fresh) {
      if (r) this.put(r);
      else this.drop(file);
    }
    const after = this.identities.validIn(touched);
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

  private put(r: FileResult): void {
    this.drop(r.file);
    this.results.set(r.file, r);
    this.sortedFiles = null;
    this.identities.add(r.entries);
  }

  private drop(file: string): void {
    const old = this.results.get(file);
    if (!old) return;
    this.results.delete(file);
    this.sortedFiles = null;
    this.identities.remove(old.entries);
  }

  /** What reading a file needs; made per file, as the load's shared strings change between loads. */
  private fileContext(): FileLoadContext {
    return {
      dir: this.dir,
      rootReal: this.rootReal!,
      maxFileBytes: this.maxFileBytes,
      fs: this.fs,
      parseOptions: this.parseOptions,
      strings: this.strings,
      key: this.key,
      fingerprintKey: this.fingerprintKey,
      image: (written) => this.image(written),
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

  private build(): CatalogueSnapshot {
    if (!this.sortedFiles) this.sortedFiles = [...this.results.keys()].sort();
    const offers: DesiredOffer[] = [];
    const problems: CatalogueProblem[] = [...this.walkProblems];
    const quarantinedFiles: string[] = [];
    const invalidOffers: { kind: OfferKind; externalId: string; file: string }[] = [];
    const csvDialects: ({ file: string } & CsvDialect)[] = [];
    for (const file of this.sortedFiles) {
      const r = this.results.get(file)!;
      if (r.csv) csvDialects.push({ file, ...r.csv });
      for (const p of r.problems) problems.push(p);
      if (r.quarantined) quarantinedFiles.push(file);
      for (const e of r.entries) {
        if (isOffer(e) && !this.identities.inConflict(e)) offers.push(e);
        else invalidOffers.push({ kind: e.kind, externalId: e.externalId, file });
      }
    }
    for (const p of this.identities.problems()) problems.push(p);
    for (const sheet of [...this.unreadSheets].sort()) problems.push(unreadSheetProblem(sheet));
    const sameAccount = sameAccountOffers(offers);
    for (const p of sameAccount.problems) problems.push(p);
    const synced = sameAccount.held.size === 0 ? offers : offers.filter((o) => !sameAccount.held.has(o));
    for (const o of sameAccount.held)
      invalidOffers.push({ kind: o.kind, externalId: o.externalId, file: o.source.file });
    return {
      dir: this.dir,
      offers: synced,
      ...(sameAccount.held.size > 0 ? { heldAccounts: heldAccounts(sameAccount.held) } : {}),
      problems,
      quarantinedFiles,
      invalidOffers,
      complete: this.complete && this.unreadSheets.size === 0,
      files: this.sortedFiles,
      csvDialects,
    };
  }
}

/** A workbook saved in a format offersync does not read: what it holds is unknown, so nothing is archived. */
function unreadSheetProblem(file: string): CatalogueProblem {
  const c = classify(file);
  return {
    severity: 'error',
    file,
    ...(c.type === 'unsupported' ? { kind: c.kind } : {}),
    message:
      'a spreadsheet format offersync does not read: nothing is archived while it is here, as the offers it ' +
      'holds are unknown. Save it as .xlsx (or .ods, or CSV), or move it out of the catalogue folder',
  };
}

function heldAccounts(held: ReadonlySet<DesiredOffer>): HeldAccount[] {
  const out: HeldAccount[] = [];
  for (const o of held)
    if (o.kind === 'account' && o.loginFingerprint !== undefined)
      out.push({ externalId: o.externalId, loginFingerprint: o.loginFingerprint });
  return out;
}
