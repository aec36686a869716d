// offersync validate [dir]: reads the catalogue (no network; the state db only to read past sales, when there is
// one), prints every problem grouped by file with summary counts, or --json. Exit 0 valid (warnings allowed), 1
// any error, 2 usage.
import { pastSales, relistProblems } from './past-sales.ts';
import { stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Config } from '../config/config.ts';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { Catalogue, type CatalogueSnapshot } from '../catalogue/catalogue.ts';
import type { CatalogueProblem } from '../catalogue/catalogue-problem.ts';
import { fileLineColumn } from '../catalogue/catalogue-problem.ts';
import { OFFER_KINDS, type OfferKind } from '../catalogue/desired-offer.ts';
import {
  escapeLines,
  type Line,
  oneLine,
  styled,
  type TerminalText,
  terminalLines,
  writeTerminal,
} from '../log/terminal-text.ts';
import { EXIT, UsageError, type CliIO, type Command } from './command.ts';
import { flagCommand } from './flag-command.ts';

const HELP = `Usage: offersync validate [dir] [flags]

Checks a catalogue directory without touching the network or writing anything: every problem with its
file:line:column, JSON pointer (JSON, YAML), external_id, field and what is expected; for each CSV file, the
delimiter and decimal mark it was read with. When the seller's state db (sqlite) is there, an account it saw
sold (or another seller of its group saw sold) listed again under another external_id is an error.
The directory is [dir], else --catalogue, else OFFERSYNC_CATALOGUE_DIR, else catalogue.dir of the config file
(--config or OFFERSYNC_CONFIG), else ./catalogue.
Exit 0: valid (warnings allowed). 1: errors. 2: usage error.

  --catalogue <dir>  the catalogue directory
  --config <file>    read catalogue.dir and catalogue.csv from this config file
  --format <f>       text (default), json, github (workflow annotations: ::error file=...,line=...),
                     gcc (file:line:column: error: message, as editors and compilers read it)
  --json             the same as --format json
  -h, --help         this text

Examples:
  offersync validate ./catalogue
  offersync validate ./catalogue --format gcc  # file:line:column: error: ... for editors
  offersync validate --format github           # annotations in a GitHub Actions workflow
`;

export const VALIDATE_FORMATS = ['text', 'json', 'github', 'gcc'] as const;
export type ValidateFormat = (typeof VALIDATE_FORMATS)[number];

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
  // A spreadsheet's place is its cell (file:Sheet1!C3), which is what the seller looks for.
  const at = p.cell !== undefined ? `${p.file}:${p.cell}` : p.line !== undefined ? fileLineColumn(p.file, p) : '';
  const pointer = p.pointer !== undefined ? p.pointer || '/' : '';
  return [at, pointer].filter((x) => x !== '').join(' ');
}

const DELIMITER_WORD = { comma: 'comma', semicolon: 'semicolon', tab: 'tab' } as const;

function dialectLine(d: CatalogueSnapshot['csvDialects'][number]): string {
  const delimiterFrom = { 'sep line': "from its 'sep=' line", header: 'from its header', setting: 'as configured' }[
    d.delimiterFrom
  ];
  const decimalFrom = {
    prices: 'from its prices',
    setting: 'as configured',
    'comma-separated': 'never a comma in a comma-separated file',
  }[d.decimalFrom];
  return (
    `  ${d.file}: ${DELIMITER_WORD[d.delimiter]}-separated (${delimiterFrom}), decimal ${d.decimalMark} ` +
    `(${decimalFrom})`
  );
}

const MAX_DIALECT_LINES = 20;

/** The path of a catalogue file as tools run in `cwd` open it, forward slashes. */
function toolPath(dir: string, file: string, cwd: string): string {
  const abs = file === '.' ? dir : join(dir, file);
  const rel = relative(cwd, abs);
  const p = rel === '' ? '.' : rel.startsWith('..') && rel.split(sep).length > 4 ? abs : rel;
  return p.split(sep).join('/');
}

function problemText(p: CatalogueProblem): string {
  const who = p.externalId !== undefined ? `[${p.externalId}] ` : '';
  const field = p.field ? `${p.field}: ` : '';
  const pointer = p.pointer ? ` (${p.pointer})` : '';
  return `${who}${field}${p.message}${pointer}`;
}

/**
 * `file:line:column: error: message`, one line each, as gcc writes and editors' problem matchers read. A
 * spreadsheet's problem gives its cell's row and column numbers as line and column (Items!C3 is `:3:3:`), so
 * matchers still take the line and open the file, and names the cell first in the message.
 */
export function formatGcc(s: CatalogueSnapshot, cwd: string): string {
  return escapeLines(
    s.problems.map(
      (p) =>
        `${fileLineColumn(toolPath(s.dir, p.file, cwd), p)}: ${p.severity}: ` +
        `${p.cell !== undefined ? `${p.cell}: ` : ''}${problemText(p)}`,
    ),
  );
}

// Workflow-command escaping: data loses %, CR and LF; properties also : and ,. Other control characters are
// shown as escapes, as everywhere else.
const ghData = (v: string): string => oneLine(v.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
const ghProperty = (v: string): string => ghData(v).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** GitHub Actions annotations: `::error file=F,line=L,col=C,title=T::message`. */
export function formatGithub(s: CatalogueSnapshot, cwd: string): string {
  return s.problems
    .map((p) => {
      const props = [`file=${ghProperty(toolPath(s.dir, p.file, cwd))}`];
      if (p.line !== undefined) props.push(`line=${p.line}`);
      if (p.column !== undefined) props.push(`col=${p.column}`);
      const title = `offersync ${p.kind ?? 'catalogue'}${p.externalId !== undefined ? ` ${p.externalId}` : ''}`;
      props.push(`title=${ghProperty(title)}`);
      const cell = p.cell !== undefined ? `${p.cell}: ` : '';
      return `::${p.severity} ${props.join(',')}::${ghData(cell + problemText(p))}\n`;
    })
    .join('');
}

/** The text report, grouped by file; `colour` for a terminal. Every value in it is escaped (terminal-text.ts). */
export function formatReport(s: CatalogueSnapshot, colour: boolean): TerminalText {
  const byFile = new Map<string, CatalogueProblem[]>();
  for (const p of s.problems) {
    const list = byFile.get(p.file) ?? [];
    list.push(p);
    byFile.set(p.file, list);
  }
  const quarantined = new Set(s.quarantinedFiles);
  const lines: Line[] = [`Catalogue ${s.dir}`, ''];
  for (const file of [...byFile.keys()].sort()) {
    const problems = byFile
      .get(file)!
      .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.pointer ?? '').localeCompare(b.pointer ?? ''));
    lines.push([
      styled('1', file),
      ...(quarantined.has(file) ? [styled('31', '  (quarantined: its offers are neither updated nor archived)')] : []),
    ]);
    for (const p of problems) {
      const sev = p.severity === 'error' ? styled('31', 'error  ') : styled('33', 'warning');
      const where = location(p);
      const who = p.externalId !== undefined ? `[${p.externalId}] ` : '';
      const field = p.field ? `${p.field}: ` : '';
      lines.push(['  ', sev, ` ${where ? `${where}  ` : ''}${who}${field}${p.message}`]);
    }
    lines.push('');
  }
  for (const file of s.quarantinedFiles) if (!byFile.has(file)) lines.push(`${file}  (quarantined)`, '');
  if (s.csvDialects.length > 0) {
    lines.push('CSV files read as:');
    for (const d of s.csvDialects.slice(0, MAX_DIALECT_LINES)) lines.push(dialectLine(d));
    if (s.csvDialects.length > MAX_DIALECT_LINES)
      lines.push(`  ... and ${s.csvDialects.length - MAX_DIALECT_LINES} more (--format json lists them all)`);
    lines.push('');
  }
  const sum = summarise(s);
  const kinds = OFFER_KINDS.map((k) => plural(sum.offers[k], KIND_PLURAL[k][0], KIND_PLURAL[k][1])).join(', ');
  lines.push(`${plural(s.files.length, 'file')} read; valid offers: ${kinds}`);
  lines.push(
    `${plural(sum.errors, 'error')}, ${plural(sum.warnings, 'warning')}, ` +
      `${plural(sum.quarantinedFiles, 'quarantined file')}, ${plural(sum.invalidOffers, 'invalid offer')}`,
  );
  if (!s.complete) lines.push(styled('31', 'The catalogue could not be read completely: a run would archive nothing.'));
  lines.push(sum.errors === 0 ? styled('32', 'valid') : styled('31', 'INVALID: fix the errors above'));
  return terminalLines(lines, colour);
}

/** The catalogue settings validate reads: the directory and how CSV files are read. */
export function catalogueSettings(
  positional: string | undefined,
  flag: string | undefined,
  io: Pick<CliIO, 'env' | 'cwd'>,
  configFile?: string,
): {
  dir: string;
  csv: Config['catalogue']['csv'];
  priceUnit: Config['catalogue']['priceUnit'];
  ignoreColumns: Config['catalogue']['ignoreColumns'];
  config: Config;
} {
  // The same precedence as every other command: --catalogue, OFFERSYNC_CATALOGUE_DIR, the config file, ./catalogue.
  let config: Config;
  try {
    // validate never uses the network: a key file that is missing is not its business.
    const { OFFERSYNC_API_KEY: _key, OFFERSYNC_API_KEY_FILE: _keyFile, ...env } = io.env;
    config = loadConfig({ flags: { config: configFile, catalogue: flag }, env, cwd: io.cwd });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  const dir = positional !== undefined ? resolve(io.cwd, positional) : config.catalogue.dir;
  const { csv, priceUnit, ignoreColumns } = config.catalogue;
  return { dir, csv, priceUnit, ignoreColumns, config };
}

const OPTIONS = {
  catalogue: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const command: Command = flagCommand({
  name: 'validate',
  options: OPTIONS,
  help: HELP,
  positionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length > 1)
      throw new UsageError(`expected at most one directory, got ${positionals.length}: ${positionals.join(' ')}`);
    const format = values.format ?? (values.json ? 'json' : 'text');
    if (!(VALIDATE_FORMATS as readonly string[]).includes(format))
      throw new UsageError(`--format must be one of ${VALIDATE_FORMATS.join(', ')}, got '${format}'`);
    if (values.json && format !== 'json') throw new UsageError(`--json and --format ${format} contradict each other`);
    const { dir, csv, priceUnit, ignoreColumns, config } = catalogueSettings(
      positionals[0],
      values.catalogue,
      io,
      values.config,
    );
    const st = await stat(dir).catch(() => null);
    if (!st) throw new UsageError(`no such catalogue directory: ${dir}`);
    if (!st.isDirectory()) throw new UsageError(`not a directory: ${dir}`);
    // Past sales, when a state db is there: a sold account relisted is an error before any run.
    const past = pastSales(config, dir);
    const loaded = await new Catalogue({
      dir,
      credentialsKey: VALIDATE_KEY,
      ...(past ? { fingerprintKey: past.fingerprintKey } : {}),
      csv: { csvDelimiter: csv.delimiter, decimalMark: csv.decimalMark, priceUnit, ignoreColumns },
    }).load();
    const relisted = past ? relistProblems(loaded.offers, past) : [];
    const snapshot = relisted.length === 0 ? loaded : { ...loaded, problems: [...loaded.problems, ...relisted] };
    const summary = summarise(snapshot);
    if (format === 'github') io.stdout.write(formatGithub(snapshot, io.cwd));
    else if (format === 'gcc') io.stdout.write(formatGcc(snapshot, io.cwd));
    else if (format === 'json') {
      const out = {
        dir,
        valid: summary.errors === 0,
        complete: snapshot.complete,
        summary,
        problems: snapshot.problems,
        quarantinedFiles: snapshot.quarantinedFiles,
        invalidOffers: snapshot.invalidOffers,
        files: snapshot.files,
        csvFiles: snapshot.csvDialects,
      };
      io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    } else {
      const colour = io.stdout.isTTY === true && io.env.NO_COLOR === undefined;
      writeTerminal(io.stdout, formatReport(snapshot, colour));
    }
    return summary.errors === 0 ? EXIT.ok : EXIT.failed;
  },
});
