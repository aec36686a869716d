// `npm run mutation:summary [-- report.json ...]`: merges Stryker's JSON reports (default: every
// reports/mutation/*.json; for a file in several, the newest report wins, so merge whole-file runs only: a run over
// a line range would stand for its whole file), prints the score per folder and per file, and lists every
// surviving or uncovered mutant. Each one is work to do: a test that kills it, or a `// Stryker disable` comment
// at its line that says why it is harmless (docs/mutation-testing.md). Nothing here is kept between runs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Status =
  | 'Killed'
  | 'Survived'
  | 'NoCoverage'
  | 'Timeout'
  | 'CompileError'
  | 'RuntimeError'
  | 'Ignored'
  | 'Pending';
interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: Status;
  location: { start: { line: number; column: number } };
}
interface Report {
  files: Record<string, { mutants: Mutant[] }>;
}
interface Counts {
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const named = args.filter((a) => !a.startsWith('--'));
const reportDir = join(root, 'reports', 'mutation');
const reports = (
  named.length > 0
    ? named
    : readdirSync(reportDir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => join(reportDir, f))
).sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);

const files = new Map<string, { mutants: Mutant[]; run: string }>();
for (const path of reports) {
  const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
  const run = path
    .split('/')
    .pop()!
    .replace(/\.json$/, '');
  for (const [file, entry] of Object.entries(report.files)) files.set(file, { mutants: entry.mutants, run });
}

/** A replacement as the list prints it: one line, at most 80 characters. */
function shown(replacement: string | undefined): string {
  return (replacement ?? '').replace(/\s+/g, ' ').slice(0, 80).replaceAll('`', "'");
}

function count(mutants: Mutant[]): Counts {
  const c: Counts = { mutants: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0 };
  for (const m of mutants) {
    if (m.status === 'Ignored' || m.status === 'CompileError' || m.status === 'RuntimeError') continue;
    c.mutants++;
    if (m.status === 'Killed') c.killed++;
    else if (m.status === 'Timeout') c.timeout++;
    else if (m.status === 'Survived') c.survived++;
    else if (m.status === 'NoCoverage') c.noCoverage++;
  }
  return c;
}

function add(a: Counts, b: Counts): Counts {
  return {
    mutants: a.mutants + b.mutants,
    killed: a.killed + b.killed,
    timeout: a.timeout + b.timeout,
    survived: a.survived + b.survived,
    noCoverage: a.noCoverage + b.noCoverage,
  };
}

function score(c: Counts): string {
  return c.mutants === 0 ? 'n/a' : `${((100 * (c.killed + c.timeout)) / c.mutants).toFixed(2)}%`;
}

function row(name: string, c: Counts, extra: string[] = []): string {
  const cells = [name, ...extra, c.mutants, c.killed, c.timeout, c.survived, c.noCoverage, score(c)];
  return `| ${cells.join(' | ')} |`;
}

const empty: Counts = { mutants: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0 };
const byFolder = new Map<string, Counts>();
let total = empty;
const fileRows: string[] = [];
const survivors: string[] = [];
for (const file of [...files.keys()].sort()) {
  const { mutants, run } = files.get(file)!;
  const c = count(mutants);
  const folder = file.startsWith('src/catalogue/') ? 'src/catalogue (price, identity)' : dirname(file);
  byFolder.set(folder, add(byFolder.get(folder) ?? empty, c));
  total = add(total, c);
  fileRows.push(row(`${file}`, c, [run]));
  const left = mutants
    .filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')
    .sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column);
  for (const m of left) {
    const line = m.location.start.line;
    const what = m.status === 'NoCoverage' ? `${m.mutatorName} (no coverage)` : m.mutatorName;
    survivors.push(`- ${file}:${line} ${what} \`${shown(m.replacement)}\``);
  }
}

const head = '| mutants | killed | timeout | survived | no coverage | score |';
const rule = '|---:|---:|---:|---:|---:|---:|';
const out = [
  `| scope ${head}`,
  `|---${rule}`,
  ...[...byFolder.keys()].sort().map((f) => row(f, byFolder.get(f)!)),
  row('**all mutated**', total),
  '',
  `| file | run ${head}`,
  `|---|---${rule}`,
  ...fileRows,
  '',
  `Survivors and uncovered mutants (${survivors.length}): kill each with a test, or disable it at its line with why:`,
  '',
  ...survivors,
].join('\n');

process.stdout.write(`${out}\n\nmutation: ${score(total)} of ${total.mutants} mutants\n`);
