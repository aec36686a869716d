// offersync validate [dir]: reads the catalogue only (no network, no state), prints every problem grouped
// by file with summary counts, or --json. Exit 0 valid (warnings allowed), 1 any error, 2 usage.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { Catalogue, type CatalogueProblem, type CatalogueSnapshot } from '../catalogue/catalogue.ts';
import { OFFER_KINDS, type OfferKind } from '../catalogue/desired-offer.ts';
import { EXIT, UsageError, type CliIO, type Command } from './command.ts';
import { parseFlags } from './common-flags.ts';

const HELP = `Usage: offersync validate [dir] [flags]

Checks a catalogue directory without touching the network or the state: every problem with its file, line
(CSV, NDJSON) or JSON pointer (JSON, YAML), external_id, field and what is expected.
The directory is [dir], else --catalogue, else OFFERSYNC_CATALOGUE_DIR, else catalogue.dir of the config file
(--config or OFFERSYNC_CONFIG), else ./catalogue.
Exit 0: valid (warnings allowed). 1: errors. 2: usage error.

  --catalogue <dir>  the catalogue directory
  --config <file>    read catalogue.dir from this config file
  --json             the report as JSON
  -h, --help         this text
`;

// validate stores nothing, so any fixed key will do for the credentials HMAC.
const VALIDATE_KEY = 'offersync-validate';

export interface ValidateSummary {
  readonly offers: Record<OfferKind, number>;
  readonly errors: number;
  readonly warnings: number;
  readonly quarantinedFiles: number;
  readonly invalidOffers: number;
}

export function summarise(s: CatalogueSnapshot): ValidateSummary {
  const offers = { account: 0, item: 0, topup: 0 } as Record<OfferKind, number>;
  for (const o of s.offers) offers[o.kind]++;
  let errors = 0;
  let warnings = 0;
  for (const p of s.problems) {
    if (p.severity === 'error') errors++;
    else warnings++;
  }
  return {
    offers,
    errors,
    warnings,
    quarantinedFiles: s.quarantinedFiles.length,
    invalidOffers: s.invalidOffers.length,
  };
}

const KIND_PLURAL: Readonly<Record<OfferKind, [string, string]>> = {
  account: ['account', 'accounts'],
  item: ['item', 'items'],
  topup: ['top-up', 'top-ups'],
};
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function location(p: CatalogueProblem): string {
  if (p.line !== undefined && p.pointer !== undefined) return `line ${p.line} ${p.pointer || '/'}`;
  if (p.line !== undefined) return `line ${p.line}`;
  if (p.pointer !== undefined) return p.pointer || '/';
  return '';
}

export function formatReport(s: CatalogueSnapshot, colour: boolean): string {
  const paint = (code: string, text: string): string => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  const byFile = new Map<string, CatalogueProblem[]>();
  for (const p of s.problems) {
    const list = byFile.get(p.file) ?? [];
    list.push(p);
    byFile.set(p.file, list);
  }
  const quarantined = new Set(s.quarantinedFiles);
  const lines: string[] = [`Catalogue ${s.dir}`, ''];
  for (const file of [...byFile.keys()].sort()) {
    const problems = byFile
      .get(file)!
      .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.pointer ?? '').localeCompare(b.pointer ?? ''));
    lines.push(
      paint('1', file) +
        (quarantined.has(file) ? paint('31', '  (quarantined: its offers are neither updated nor archived)') : ''),
    );
    for (const p of problems) {
      const sev = p.severity === 'error' ? paint('31', 'error  ') : paint('33', 'warning');
      const where = location(p);
      const who = p.externalId !== undefined ? `[${p.externalId}] ` : '';
      const field = p.field ? `${p.field}: ` : '';
      lines.push(`  ${sev} ${where ? where + '  ' : ''}${who}${field}${p.message}`);
    }
    lines.push('');
  }
  for (const file of s.quarantinedFiles) if (!byFile.has(file)) lines.push(`${file}  (quarantined)`, '');
  const sum = summarise(s);
  const kinds = OFFER_KINDS.map((k) => plural(sum.offers[k], KIND_PLURAL[k][0], KIND_PLURAL[k][1])).join(', ');
  lines.push(`${plural(s.files.length, 'file')} read; valid offers: ${kinds}`);
  lines.push(
    `${plural(sum.errors, 'error')}, ${plural(sum.warnings, 'warning')}, ${plural(sum.quarantinedFiles, 'quarantined file')}, ${plural(sum.invalidOffers, 'invalid offer')}`,
  );
  if (!s.complete) lines.push(paint('31', 'The catalogue could not be read completely: a run would archive nothing.'));
  lines.push(sum.errors === 0 ? paint('32', 'valid') : paint('31', 'INVALID: fix the errors above'));
  return lines.join('\n') + '\n';
}

export function catalogueDir(
  positional: string | undefined,
  flag: string | undefined,
  io: Pick<CliIO, 'env' | 'cwd'>,
  configFile?: string,
): string {
  if (positional !== undefined) return resolve(io.cwd, positional);
  // The same precedence as every other command: --catalogue, OFFERSYNC_CATALOGUE_DIR, the config file, ./catalogue.
  try {
    return loadConfig({ flags: { config: configFile, catalogue: flag }, env: io.env, cwd: io.cwd }).catalogue.dir;
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}

export const command: Command = {
  name: 'validate',
  summary: 'check the catalogue, no network',
  async run(argv, io) {
    const { values, positionals } = parseFlags(
      argv,
      {
        catalogue: { type: 'string' },
        config: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      true,
    );
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    if (positionals.length > 1)
      throw new UsageError(`expected at most one directory, got ${positionals.length}: ${positionals.join(' ')}`);
    const dir = catalogueDir(positionals[0], values.catalogue, io, values.config);
    const st = await stat(dir).catch(() => null);
    if (!st) throw new UsageError(`no such catalogue directory: ${dir}`);
    if (!st.isDirectory()) throw new UsageError(`not a directory: ${dir}`);
    const snapshot = await new Catalogue({ dir, credentialsKey: VALIDATE_KEY }).load();
    const summary = summarise(snapshot);
    if (values.json) {
      const out = {
        dir,
        valid: summary.errors === 0,
        complete: snapshot.complete,
        summary,
        problems: snapshot.problems,
        quarantinedFiles: snapshot.quarantinedFiles,
        invalidOffers: snapshot.invalidOffers,
        files: snapshot.files,
      };
      io.stdout.write(JSON.stringify(out, null, 2) + '\n');
    } else {
      const colour = io.stdout.isTTY === true && io.env.NO_COLOR === undefined;
      io.stdout.write(formatReport(snapshot, colour));
    }
    return summary.errors === 0 ? EXIT.ok : EXIT.failed;
  },
};
