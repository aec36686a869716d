// Watches the catalogue directory and reports changed files in batches: a write is reported once it has
// settled (awaitWriteFinish), and a burst of changes (a git checkout of 500 files) is one batch.
// Ignores exactly what the loader ignores. A rename is reported as removed + added.
import { EventEmitter } from 'node:events';
import type { Stats } from 'node:fs';
import { relative, sep } from 'node:path';
import { watch } from 'chokidar';
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

  const flush = (): void => {
    timer = undefined;
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

  const watcher = watch(dir, {
    ignoreInitial: true,
    followSymlinks: true,
    awaitWriteFinish: {
      stabilityThreshold: stabilityMs,
      pollInterval: Math.max(10, Math.min(100, Math.floor(stabilityMs / 2))),
    },
    ignored: (path: string, stats?: Stats) => isWatchIgnored(toRel(path), stats),
  });
  watcher.on('add', (p: string) => record('add', p));
  watcher.on('change', (p: string) => record('change', p));
  watcher.on('unlink', (p: string) => record('unlink', p));
  // A removed folder: its path, which Catalogue.reload takes as "everything under it".
  watcher.on('unlinkDir', (p: string) => record('unlinkDir', p));
  watcher.on('error', (e: unknown) => {
    const err = e instanceof Error ? e : new Error(String(e));
    // An EventEmitter throws an 'error' nobody listens to: log it instead of crashing the daemon.
    if (emitter.listenerCount('error') > 0) emitter.emit('error', err);
    else logger.warn({ err: err.message }, 'catalogue watcher error');
  });
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  return {
    on(event: 'batch' | 'error', fn: ((c: FileChanges) => void) | ((e: Error) => void)): void {
      emitter.on(event, fn);
    },
    ready,
    async close(): Promise<void> {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await watcher.close();
    },
  };
}
