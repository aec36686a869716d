// A state db that is damaged, or a disk that fills during a run, is said in one paragraph (what happened, what was
// done, what to do), never a stack trace; and a run cut short by a full disk loses and duplicates nothing.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mainCaptured } from '../support/captured-io.ts';
import { CLI } from '../support/cli.ts';
import { harnessCliConfig, harnessPerTest } from '../support/harness.ts';

const openHarness = harnessPerTest();

const STACK_LINE = /^\s+at /m;

function items(prefix: string, n: number): string {
  return Array.from(
    { length: n },
    (_, i) =>
      `${JSON.stringify({ external_id: `${prefix}-${i}`, game: 'wow', title: `Item ${i}`, price: 150, stock: 3 })}\n`,
  ).join('');
}

/** The CLI as a child process whose files may not grow past `fileKb` (bash's ulimit -f): a disk that fills. */
function runWithFileLimit(
  args: readonly string[],
  fileKb: number,
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stderr: string }> {
  const command = [process.execPath, ...CLI, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `ulimit -f ${fileKb * 2}; exec ${command}`], {
      cwd: opts.cwd,
      env: { ...opts.env, PATH: process.env.PATH },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('a failing state db is said plainly', () => {
  it('status, plan and reconcile on a damaged state db: one paragraph with the fix, exit 2, nothing sent', async () => {
    const h = await openHarness();
    h.write('items/a.ndjson', items('A', 3));
    const cli = harnessCliConfig(h);
    // Written by something else, or cut in half: not a SQLite file.
    mkdirSync(join(h.dir, 'state'), { recursive: true });
    writeFileSync(join(h.dir, 'state', 'state.db'), Buffer.alloc(8192, 0x5a));
    h.sandbox.resetCounters();

    for (const command of ['status', 'reconcile', 'plan']) {
      const run = await mainCaptured([command], cli);
      expect(run.code, run.err).toBe(2);
      expect(run.err).toContain('is damaged or is not a state db');
      expect(run.err).toContain(`mv ${join(h.dir, 'state', 'state.db')}`);
      expect(run.err).toContain('adopts your live offers by external_id');
      expect(run.err).not.toMatch(STACK_LINE);
    }
    expect(h.writes()).toBe(0);
  });

  it('a disk full mid-run: a paragraph, no stack trace; the next run records and duplicates nothing', async () => {
    const h = await openHarness();
    h.write('items/a.ndjson', items('A', 5));
    const cli = harnessCliConfig(h);
    expect((await mainCaptured(['reconcile'], cli)).code).toBe(0);
    h.write('items/b.ndjson', items('B', 300));

    // The state db (128 KB after its first run) may not grow: its first new page fails, as on a full disk.
    const cut = await runWithFileLimit(['reconcile'], 200, cli);
    expect(cut.code, cut.stderr).toBe(1);
    expect(cut.stderr).toMatch(/The state db .*state\.db could not be read or written|disk that holds the state db/);
    expect(cut.stderr).toContain('The run stopped and started no further write');
    expect(cut.stderr).toContain('What to do:');
    expect(cut.stderr).not.toMatch(STACK_LINE);

    const again = await mainCaptured(['reconcile'], cli);
    expect(again.code, again.err).toBe(0);
    const listed = h.sandbox.dump().items.filter((o) => o.status !== 'archived');
    expect(listed).toHaveLength(305);
    expect(new Set(listed.map((o) => o.external_id)).size).toBe(305);
    const noop = await mainCaptured(['plan'], cli);
    expect(noop.code, noop.out).toBe(0);
  });
});
