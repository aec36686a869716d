// Each run's report as a file beside the state db (runs/<run id>.json): where it goes, that only run ids name a
// file there, that the oldest beyond `keep` are deleted and nothing else is, that a report that cannot be written
// is a warning and not a failed run, and that a missing or torn file reads as none.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REDACTED, registerSecret } from '../../../src/log/scrubber.ts';
import type { RunReport } from '../../../src/sync/report/run-report.ts';
import {
  readRunReport,
  runReportDir,
  runReportPath,
  writeRunReport,
} from '../../../src/sync/report/run-report-file.ts';
import { captureLog } from '../../support/log-capture.ts';

let dir: string;
let statePath: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'offersync-run-report-'));
  statePath = join(dir, 'state.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const runId = (n: number): string => `20261125T0518${String(n).padStart(2, '0')}-abc${String(n).padStart(3, '0')}`;
const report = (id: string, messages: string[] = []): RunReport => ({
  runId: id,
  outcome: 'converged',
  outcomes: [{ kind: 'item', externalId: 'gold-1', outcome: 'updated', file: 'items/i.json' }],
  counts: {},
  requests: 3,
  durationMs: 12,
  messages,
  sales: [],
});
const runsDir = () => join(dir, 'runs');

describe('where run reports go', () => {
  it('a folder runs/ beside the state db; none for a state db in memory', () => {
    expect(runReportDir(statePath)).toBe(runsDir());
    expect(runReportDir(':memory:')).toBeNull();
    expect(runReportPath(':memory:', runId(1))).toBeNull();
    expect(runReportPath(statePath, runId(1))).toBe(join(runsDir(), `${runId(1)}.json`));
  });

  it.each([
    ['a path', '../../etc/passwd'],
    ['text before a run id', `x${runId(1)}`],
    ['text after a run id', `${runId(1)}x`],
    ['a short date', '2026112T051801-abc001'],
    ['a short time', '20261125T05180-abc001'],
    ['no T', '20261125-051801-abc001'],
    ['no dash', '20261125T051801abc001'],
    ['a short suffix', '20261125T051801-abc01'],
    ['letters past f in the suffix', '20261125T051801-abcxyz'],
    ['empty', ''],
  ])('names no file for %s', (_what, id) => {
    expect(runReportPath(statePath, id)).toBeNull();
  });
});

describe('writing and reading', () => {
  it('reads back what was written, owner-only, in a folder only the owner opens', () => {
    writeRunReport(statePath, report(runId(1)));
    expect(readRunReport(statePath, runId(1))).toEqual(report(runId(1)));
    const file = join(runsDir(), `${runId(1)}.json`);
    expect(readFileSync(file, 'utf8').endsWith('}\n')).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(runsDir()).mode & 0o777).toBe(0o700);
  });

  it('blanks a secret that got into a message', () => {
    const secret = 'hunter2-run-report-secret';
    registerSecret(secret);
    writeRunReport(statePath, report(runId(1), [`refused: password ${secret}`]));
    expect(readRunReport(statePath, runId(1))?.messages).toEqual([`refused: password ${REDACTED}`]);
  });

  it('writes nothing for a state db in memory, nor for a run id that names no file', () => {
    writeRunReport(':memory:', report(runId(1)));
    writeRunReport(statePath, report('../escape'));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('keeps the newest `keep` reports and leaves every other file of the folder alone', () => {
    mkdirSync(runsDir());
    const others = ['notes.txt', 'latest.json', `${runId(0)}.json.bak`, `${runId(0)}.yaml`];
    for (const f of others) writeFileSync(join(runsDir(), f), 'x');
    for (const n of [3, 1, 4, 2, 5]) writeRunReport(statePath, report(runId(n)), 3);
    expect(readdirSync(runsDir()).sort()).toEqual(
      [...others, `${runId(3)}.json`, `${runId(4)}.json`, `${runId(5)}.json`].sort(),
    );
  });

  it('keeps at least the report just written', () => {
    writeRunReport(statePath, report(runId(1)), 0);
    writeRunReport(statePath, report(runId(2)), 0);
    expect(readdirSync(runsDir())).toEqual([`${runId(2)}.json`]);
  });

  it('keeps 200 unless told', () => {
    for (let n = 0; n < 201; n++) writeRunReport(statePath, report(`20261125T${String(n).padStart(6, '0')}-abcdef`));
    const left = readdirSync(runsDir()).sort();
    expect(left).toHaveLength(200);
    expect(left[0]).toBe('20261125T000001-abcdef.json');
  });

  it('a report that cannot be written is a warning naming the file: the run itself is done', () => {
    writeFileSync(runsDir(), 'a file where the folder should be');
    const log = captureLog('warn');
    expect(() => writeRunReport(statePath, report(runId(1)), 200, log.logger)).not.toThrow();
    const [line] = log.find('the run report file could not be written');
    expect(line).toMatchObject({ level: 40, path: join(runsDir(), `${runId(1)}.json`) });
    expect(String(line?.err)).toMatch(/EEXIST|ENOTDIR/);
    // And without a logger, silently.
    expect(() => writeRunReport(statePath, report(runId(1)))).not.toThrow();
  });

  it('a report never written, deleted or torn reads as none', () => {
    expect(readRunReport(statePath, runId(1))).toBeUndefined();
    expect(readRunReport(':memory:', runId(1))).toBeUndefined();
    mkdirSync(runsDir());
    writeFileSync(join(runsDir(), `${runId(2)}.json`), '{"runId": "2026');
    expect(readRunReport(statePath, runId(2))).toBeUndefined();
    writeFileSync(join(runsDir(), 'evil.json'), JSON.stringify(report('evil')));
    expect(readRunReport(statePath, 'evil')).toBeUndefined();
  });
});
