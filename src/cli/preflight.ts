// What a run needs on this machine, checked before any request: the catalogue directory and the state db's
// folder. Without this, a mistyped --catalogue would plan every offer as kept "because the catalogue was
// incomplete", read the marketplace's lists, and only then say the directory did not exist.
import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Config } from '../config/config.ts';
import { nearestName } from './common-flags.ts';

/** The one line that stops the command (exit 2), or undefined when the setup is readable. */
export function setupProblem(config: Config): string | undefined {
  return catalogueProblem(config.catalogue.dir) ?? stateFolderProblem(config);
}

export function catalogueProblem(dir: string): string | undefined {
  const fix = 'give its path with --catalogue (or OFFERSYNC_CATALOGUE_DIR, or catalogue.dir in the config file)';
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (err) {
    const near = nearSibling(dir);
    return (
      `cannot read the catalogue directory ${dir} (${codeOf(err)}: ${describe(err)})` +
      `${near ? `; did you mean ${near}?` : ''}: ${fix}. Nothing was sent.`
    );
  }
  if (!isDir) return `the catalogue ${dir} is a file, not a directory: ${fix}. Nothing was sent.`;
  try {
    readdirSync(dir);
  } catch (err) {
    return (
      `cannot read the catalogue directory ${dir} (${codeOf(err)}: ${describe(err)}): let this user read it ` +
      `(chmod u+rx), or ${fix}. Nothing was sent.`
    );
  }
  return undefined;
}

/**
 * A sqlite state db's folder is made when missing (the first run of a new seller), so what stops the run is a
 * folder that cannot be written, or made, or a state db file that cannot be read.
 */
function stateFolderProblem(config: Config): string | undefined {
  const path = config.state.path;
  if (config.state.url || path === ':memory:') return undefined;
  const fix = 'give a state db in a folder this user can write with --state (or OFFERSYNC_STATE_DB, or state.path)';
  let folder = dirname(path);
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  try {
    if (!statSync(folder).isDirectory())
      return `the state db's folder ${folder} is a file, not a directory: ${fix}. Nothing was sent.`;
    accessSync(folder, constants.W_OK | constants.X_OK);
    if (existsSync(path)) accessSync(path, constants.R_OK | constants.W_OK);
  } catch (err) {
    const what = existsSync(path) ? `the state db ${path}` : `the state db's folder ${folder}`;
    return `cannot write ${what} (${codeOf(err)}: ${describe(err)}): ${fix}. Nothing was sent.`;
  }
  return undefined;
}

/** A directory beside the one given whose name is one typo away: ./shopp -> ./shop. */
function nearSibling(dir: string): string | undefined {
  try {
    const parent = dirname(dir);
    const names = readdirSync(parent, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    const near = nearestName(basename(dir), names);
    return near ? `${parent === '/' ? '' : parent}/${near}` : undefined;
  } catch {
    return undefined;
  }
}

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'error';
}

function describe(err: unknown): string {
  const code = codeOf(err);
  return code === 'ENOENT'
    ? 'no such directory'
    : code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'ENOTDIR'
        ? 'a part of the path is a file'
        : (err as Error).message;
}
