// Watches the catalogue directory and reports changed files in batches: a write is reported once it has
// settled (awaitWriteFinish), and a burst of changes (a git checkout of 500 files) is one batch.
// Ignores exactly what the loader ignores. A rename is reported as removed + added. A catalogue directory that
// vanishes (an unmounted volume, a sync client replacing it) is "unknown", never "empty": its changes are held until
// it is back, and then the watcher re-attaches and reports every file as changed, so the catalogue is read afresh.
import { EventEmitter } from 'node:events';
import { readdirSync, type Stats, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import { silentLogger, type Logger } from '../log/logger.ts';
import type { FileChanges } from './catalogue.ts';
import { IMAGES_FOLDER, KIND_FOLDERS, classify, isIgnoredName, isUnreadSpreadsheet } from './layout.ts';

export interface WatchOptions {
  /** Quiet time that ends a batch. Default 300 ms. */
  readonly debounceMs?: number;
  /** A file must keep its size this long before its change is reported. Default 200 ms. */
  readonly stabilityMs?: number;
  /** A batch is flushed after this long even if changes keep coming. Default max(10 x debounceMs, 3000). */
  readonly maxWaitMs?: number;
  /** How often the directory itself is checked, to re-attach when it comes back. Default 1000 ms. */
  readonly reattachMs?: number;
  readonly logger?: Logger;
}

export interface CatalogueWatcher {
  on(event: 'batch', fn: (c: FileChanges) => void): void;
  on(event: 'error', fn: (e: Error) => void): void;
  /** Resolves when the initial scan is done and changes are being watched. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

type FileEvent = 'add' | 'change' | 'unlink';

/** Whether the watcher skips a catalogue-relative path (forward slashes). Directories: stats may be absent. */
export function isWatchIgnored(rel: string, stats?: Stats): boolean {
  if (rel === '' || rel === '.') return false;
  const parts = rel.split('/');
  if (parts.some(isIgnoredName)) return true;
  const top = parts[0]!;
  if (!(top in KIND_FOLDERS) && top !== IMAGES_FOLDER) return true;
  if (parts.length === 1) return stats !== undefined && !stats.isDirectory();
  if (stats?.isFile()) {
    const c = classify(rel);
    return c.type !== 'offers' && c.type !== 'image' && !isUnreadSpreadsheet(rel);
  }
  return false;
}

export function watchCatalogue(dir: string, opts: WatchOptions = {}): CatalogueWatcher {
  const debounceMs = opts.debounceMs ?? 300;
  const stabilityMs = opts.stabilityMs ?? 200;
  const maxWaitMs = opts.maxWaitMs ?? Math.max(10 * debounceMs, 3000);
  const logger = opts.logger ?? silentLogger;
  const emitter = new EventEmitter();
  const toRel = (p: string): string => relative(dir, p).split(sep).join('/');

  // path -> first and last event of the current batch: enough to tell added, changed and removed apart.
  let pending = new Map<string, { first: FileEvent | 'unlinkDir'; last: FileEvent | 'unlinkDir' }>();
  let timer: NodeJS.Timeout | undefined;
  let batchStarted = 0;
  let closed = false;

  /** The directory's identity: a new inode is a new directory, which the running watcher does not see. */
  const rootIno = (): number | undefined => statSync(dir, { throwIfNoEntry: false })?.ino;
  let watchedIno = rootIno();
  let gone = watchedIno === undefined;

  const flush = (): void => {
    timer = undefined;
    if (rootIno() === undefined) {
      // The directory is gone: its files are unknown, not removed. Held; the re-attach reads everything again.
      if (!gone) logger.warn({ dir }, 'catalogue directory gone: changes are held until it is back');
      gone = true;
      pending = new Map();
      return;
    }
    const batch = pending;
    pending = new Map();
    const added: string[] = [];
    const changed: string[] = [];
    const removed: string[] = [];
    for (const [path, { first, last }] of batch) {
      const existedBefore = first !== 'add';
      const existsNow = last === 'add' || last === 'change';
      if (existsNow && !existedBefore) added.push(path);
      else if (existsNow) changed.push(path);
      else if (existedBefore) removed.push(path);
    }
    if (added.length + changed.length + removed.length === 0) return;
    added.sort();
    changed.sort();
    removed.sort();
    logger.debug({ added: added.length, changed: changed.length, removed: removed.length }, 'catalogue watcher: batch');
    emitter.emit('batch', { added, changed, removed } satisfies FileChanges);
  };

  const record = (event: FileEvent | 'unlinkDir', absPath: string): void => {
    if (closed) return;
    const rel = toRel(absPath);
    if (rel === '' || rel.startsWith('..')) return;
    const seen = pending.get(rel);
    if (seen) seen.last = event;
    else pending.set(rel, { first: event, last: event });
    const now = Date.now();
    if (timer === undefined) batchStarted = now;
    else clearTimeout(timer);
    timer = setTimeout(flush, now - batchStarted >= maxWaitMs ? 0 : debounceMs);
  };

  const attach = (): FSWatcher => {
    const w = watch(dir, {
      ignoreInitial: true,
      followSymlinks: true,
      awaitWriteFinish: {
        stabilityThreshold: stabilityMs,
        pollInterval: Math.max(10, Math.min(100, Math.floor(stabilityMs / 2))),
      },
      ignored: (path: string, stats?: Stats) => isWatchIgnored(toRel(path), stats),
    });
    w.on('add', (p: string) => record('add', p));
    w.on('change', (p: string) => record('change', p));
    w.on('unlink', (p: string) => record('unlink', p));
    // A removed folder: its path, which Catalogue.reload takes as "everything under it".
    w.on('unlinkDir', (p: string) => record('unlinkDir', p));
    w.on('error', (e: unknown) => {
      const err = e instanceof Error ? e : new Error(String(e));
      // An EventEmitter throws an 'error' nobody listens to: log it instead of crashing the daemon.
      if (emitter.listenerCount('error') > 0) emitter.emit('error', err);
      else logger.warn({ err: err.message }, 'catalogue watcher error');
    });
    return w;
  };
  let watcher = attach();
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  // The directory came back, or another took its place: watch it afresh, and report every folder removed and
  // every file in it changed, so that Catalogue.reload drops what is gone and reads what is there.
  let reattaching = false;
  const reattach = async (ino: number): Promise<void> => {
    reattaching = true;
    watchedIno = ino;
    gone = false;
    logger.warn({ dir }, 'catalogue directory is back: watching it again and reading it afresh');
    try {
      // The old watcher first: chokidar shares its file system watches between the watchers of one process.
      await watcher.close();
      if (closed) return;
      watcher = attach();
      await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
      if (closed) return;
      if (timer !== undefined) clearTimeout(timer);
      pending = new Map();
      for (const folder of [...Object.keys(KIND_FOLDERS), IMAGES_FOLDER])
        pending.set(folder, { first: 'unlinkDir', last: 'unlinkDir' });
      for (const rel of filesUnder(dir)) pending.set(rel, { first: 'change', last: 'change' });
      flush();
    } finally {
      reattaching = false;
    }
  };
  const poll = setInterval(() => {
    if (closed || reattaching) return;
    const ino = rootIno();
    if (ino === undefined) {
      if (!gone) logger.warn({ dir }, 'catalogue directory gone: changes are held until it is back');
      gone = true;
    } else if (gone || ino !== watchedIno) void reattach(ino);
  }, opts.reattachMs ?? 1000);
  poll.unref();

  return {
    on(event: 'batch' | 'error', fn: ((c: FileChanges) => void) | ((e: Error) => void)): void {
      emitter.on(event, fn);
    },
    ready,
    async close(): Promise<void> {
      closed = true;
      clearInterval(poll);
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await watcher.close();
    },
  };
}

/** Catalogue-relative paths of the files the watcher reports (offer files, images, unread spreadsheets). */
function filesUnder(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const rel = name.split(sep).join('/');
    const stats = statSync(join(dir, name), { throwIfNoEntry: false });
    if (!stats?.isFile() || isWatchIgnored(rel, stats) || rel.split('/').some(isIgnoredName)) continue;
    out.push(rel);
  }
  return out.sort();
}
