// --only, --file and --match of plan and reconcile: the flags, their help, and the Target they make. A --file is
// read relative to the working directory, or else to the catalogue, and must name a file of the catalogue.
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { OFFER_KINDS, type OfferKind } from '../catalogue/desired-offer.ts';
import { globRegExp, type Target } from '../sync/target.ts';
import { UsageError } from './command.ts';

export const TARGET_OPTIONS = {
  only: { type: 'string' },
  file: { type: 'string', multiple: true },
  match: { type: 'string' },
} as const;

export const TARGET_HELP = `  --only <kinds>         only account, item or topup offers (comma-separated for several)
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

export function resolveTarget(flags: TargetFlags, catalogueDir: string, cwd: string): Target {
  let kinds: OfferKind[] | undefined;
  if (flags.only !== undefined) {
    kinds = [];
    for (const k of flags.only.split(',').map((s) => s.trim())) {
      if (!(OFFER_KINDS as readonly string[]).includes(k))
        throw new UsageError(`--only takes ${OFFER_KINDS.join(', ')} (comma-separated), got '${k}'`);
      kinds.push(k as OfferKind);
    }
  }
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
