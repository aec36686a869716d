// Walks the catalogue directory tree and lists its offer files. Follows symlinks only while they stay inside the
// catalogue, never loops, and says whether the listing is complete: a folder that could not be read
// means "unknown", never "empty" (docs/architecture.md, Guard).
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log/logger.ts';
import type { CatalogueProblem } from './catalogue-problem.ts';
import { isInside } from './image-files.ts';
import { KIND_FOLDERS, SUPPORTED_EXTENSIONS, classify, isIgnoredName, isUnreadSpreadsheet } from './layout.ts';

export interface WalkResult {
  /** Catalogue-relative offer files, sorted. */
  readonly files: string[];
  /** Paths that look like offer files but cannot be read safely (symlink loop, symlink leaving the catalogue). */
  readonly badFiles: { readonly file: string; readonly message: string }[];
  readonly problems: CatalogueProblem[];
  readonly complete: boolean;
  /** Spreadsheets in a format offersync does not read (layout.ts, isUnreadSpreadsheet), sorted. */
  readonly unreadSheets: string[];
}

type Refusal =
  | { readonly refused: 'outside'; readonly real: string }
  | { readonly refused: 'broken'; readonly why: string };
type Link = { readonly real: string; readonly refused?: never } | Refusal;

/**
 * Where a symlink of the catalogue leads. The one rule for every symlink of the catalogue, a kind folder as
 * much as a file or a folder below it: it must resolve inside the catalogue's real root, or it is refused
 * (a link to a system folder would be walked and its files read as offers).
 */
async function followLink(dir: string, rootReal: string, rel: string): Promise<Link> {
  let real: string;
  try {
    real = await realpath(join(dir, rel));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ELOOP'
        ? 'this symlink is a loop (it leads back to itself)'
        : `this symlink leads nowhere (${code ?? 'unreadable'})`;
    return { refused: 'broken', why };
  }
  return isInside(rootReal, real) ? { real } : { refused: 'outside', real };
}

const OUTSIDE_FILE = 'this symlink leads outside the catalogue directory: copy the file into the catalogue instead';

/** A refused symlink that is not an offer file (a folder, a kind folder): what is behind it is unknown. */
function folderRefusal(link: Refusal): string {
  if (link.refused === 'broken')
    return `${link.why}: it is not read, and nothing is archived until it is fixed or removed`;
  return (
    `this symlink leads outside the catalogue directory (to ${link.real}): it is not read, and nothing is ` +
    'archived until it is fixed; move or copy the folder into the catalogue instead of linking it'
  );
}

export async function walkCatalogue(dir: string, rootReal: string, logger: Logger): Promise<WalkResult> {
  const files: string[] = [];
  const badFiles: { file: string; message: string }[] = [];
  const unreadSheets: string[] = [];
  const problems: CatalogueProblem[] = [];
  let complete = true;
  const visited = new Set<string>([rootReal]);

  let top: Dirent[];
  try {
    top = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    problems.push({
      severity: 'error',
      file: '.',
      message:
        `cannot read the catalogue directory ${dir}: ` +
        `${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    });
    return { files, badFiles, problems, complete: false, unreadSheets };
  }
  const queue: { rel: string; real: string }[] = [];
  for (const e of top) {
    if (e.name in KIND_FOLDERS) {
      let real = join(rootReal, e.name);
      if (e.isSymbolicLink()) {
        const link = await followLink(dir, rootReal, e.name);
        if (link.refused) {
          // Its offers are unknown, not absent: nothing may be archived for them.
          problems.push({ severity: 'error', file: e.name, message: folderRefusal(link) });
          complete = false;
          continue;
        }
        real = link.real;
      }
      visited.add(real);
      queue.push({ rel: e.name, real });
    } else if (e.name !== 'images')
      logger.debug({ file: e.name }, 'catalogue: ignored (outside the accounts, items, top-ups and images folders)');
  }

  while (queue.length > 0) {
    const { rel: dirRel, real: dirReal } = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = await readdir(join(dir, dirRel), { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !dirRel.includes('/')) continue;
      complete = false;
      const why = code ?? (err as Error).message;
      problems.push({
        severity: 'error',
        file: dirRel,
        message: `cannot read this folder (${why}): nothing is archived until it can be read`,
      });
      continue;
    }
    for (const e of entries) {
      const rel = `${dirRel}/${e.name}`;
      if (isIgnoredName(e.name)) {
        logger.debug({ file: rel }, 'catalogue: ignored (dotfile or editor swap/temp file)');
        continue;
      }
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      let real = join(dirReal, e.name);
      if (e.isSymbolicLink()) {
        const looksLikeOffers = classify(rel).type === 'offers';
        const link = await followLink(dir, rootReal, rel);
        if (link.refused) {
          if (link.refused === 'outside') {
            if (looksLikeOffers) badFiles.push({ file: rel, message: OUTSIDE_FILE });
            else {
              problems.push({ severity: 'error', file: rel, message: folderRefusal(link) });
              complete = false;
            }
          } else if (looksLikeOffers)
            badFiles.push({ file: rel, message: `${link.why}: its offers are left as they are` });
          else problems.push({ severity: 'warning', file: rel, message: `${link.why} (ignored)` });
          continue;
        }
        real = link.real;
        try {
          const st = await stat(real);
          isDir = st.isDirectory();
          isFile = st.isFile();
        } catch (err) {
          badFiles.push({
            file: rel,
            message:
              `cannot read this symlink's target: ` +
              `${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
          });
          continue;
        }
      }
      if (isDir) {
        if (visited.has(real)) {
          problems.push({
            severity: 'warning',
            file: rel,
            message: 'this folder was already read through another path (a symlink loop?): read once',
          });
          continue;
        }
        visited.add(real);
        queue.push({ rel, real });
        continue;
      }
      if (!isFile) continue;
      const c = classify(rel);
      if (c.type === 'offers') files.push(rel);
      else if (isUnreadSpreadsheet(rel)) unreadSheets.push(rel);
      else if (c.type === 'unsupported') {
        problems.push({
          severity: 'warning',
          file: rel,
          message: `not a catalogue format (${SUPPORTED_EXTENSIONS.map((x) => `.${x}`).join(', ')}): ignored`,
        });
      } else logger.debug({ file: rel }, 'catalogue: ignored');
    }
  }
  files.sort();
  unreadSheets.sort();
  return { files, badFiles, problems, complete, unreadSheets };
}
