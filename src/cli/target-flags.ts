// --only, --file and --match of plan and reconcile: the flags, their help, and the Target they make. A --file is
// read relative to the working directory, or else to the catalogue, and must name a file of the catalogue.
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { OFFER_KINDS, type OfferKind } from '../catalogue/desired-offer.ts';
import { KIND_FOLDERS, parseKindName } from '../catalogue/layout.ts';
import { nearestName } from './common-flags.ts';
import { globRegExp, type Target } from '../sync/plan/target.ts';
import { UsageError } from './command.ts';

export const TARGET_OPTIONS = {
  only: { type: 'string' },
  file: { type: 'string', multiple: true },
  match: { type: 'string' },
} as const;

export const TARGET_HELP = `  --only <kinds>         only accounts, items or top-ups (as the folders are named, or
                         singular; comma-separated for several)
  --file <path>          only the offers of this catalogue file (repeat for several)
  --match <glob>         only offers whose external_id matches (* any characters, ? one; quote it)
                         A targeted run never archives anything outside its target, and says so.`;

/** The target flags as given, before the catalogue directory is known. */
export interface TargetFlags {
  readonly only?: string;
  readonly file?: readonly string[];
  readonly match?: string;
}

export function targetFlags(values: { only?: string; file?: string[]; match?: string }): TargetFlags | undefined {
  if (values.only === undefined && values.file === undefined && values.match === undefined) return undefined;
  return {
    ...(values.only !== undefined ? { only: values.only } : {}),
    ...(values.file !== undefined ? { file: values.file } : {}),
    ...(values.match !== undefined ? { match: values.match } : {}),
  };
}

/** What --only completes to: the catalogue's folder names. */
export const ONLY_VALUES: readonly string[] = Object.keys(KIND_FOLDERS);

/**
 * --only's kinds, as the folders are named or as the kind (accounts, top-ups, account, topup, in any case):
 * a seller types the folder they see.
 */
export function parseKinds(only: string): OfferKind[] {
  const kinds: OfferKind[] = [];
  for (const given of only.split(',').map((s) => s.trim())) {
    const kind = parseKindName(given);
    if (!kind) {
      const near = nearestName(given.toLowerCase(), [...ONLY_VALUES, ...OFFER_KINDS]);
      throw new UsageError(
        `--only takes ${ONLY_VALUES.join(', ')} (the catalogue's folders, singular too; comma-separated), ` +
          `got '${given}'${near ? `; did you mean '${near}'?` : ''}`,
      );
    }
    if (!kinds.includes(kind)) kinds.push(kind);
  }
  return kinds;
}

export function resolveTarget(flags: TargetFlags, catalogueDir: string, cwd: string): Target {
  const kinds = flags.only !== undefined ? parseKinds(flags.only) : undefined;
  const files = flags.file?.map((f) => catalogueFile(f, catalogueDir, cwd));
  if (flags.match !== undefined && flags.match === '') throw new UsageError('--match takes a glob, got nothing');
  if (flags.match !== undefined) {
    try {
      globRegExp(flags.match);
    } catch (err) {
      // A class whose range runs backwards ('[z-a]') is no pattern at all: say so before any run starts.
      throw new UsageError(`--match '${flags.match}' is not a glob offersync can read: ${(err as Error).message}`);
    }
  }
  return {
    ...(kinds ? { kinds } : {}),
    ...(files ? { files } : {}),
    ...(flags.match !== undefined ? { match: flags.match } : {}),
  };
}

function catalogueFile(given: string, dir: string, cwd: string): string {
  const inside = (abs: string): string | undefined => {
    const rel = relative(dir, abs);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : undefined;
  };
  const fromCwd = inside(resolve(cwd, given));
  if (fromCwd !== undefined) return fromCwd;
  if (!isAbsolute(given) && existsSync(join(dir, given))) return inside(join(dir, given))!;
  throw new UsageError(`--file ${given}: not a file of the catalogue ${dir}`);
}
