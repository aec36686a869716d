// Prints one plain closing line (`vitest: N passed, M failed`) that CI reads, after vitest's own report.
import type { Reporter, TestModule } from 'vitest/node';
import { leftAfter, runRoot } from './left-processes.ts';
import { isSharedPostgres } from './shared-postgres.ts';

/** How long processes stopping at the run's end get before they count as left behind. */
const LEFT_GRACE_MS = 5_000;

export default class SummaryReporter implements Reporter {
  readonly #root = runRoot();

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): Promise<void> {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      let failedHere = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      // A file that failed to load, or whose beforeAll failed (its tests then count as skipped), has no failed
      // test of its own but must still fail the run and the line.
      if (mod.state() === 'failed' && failedHere === 0) failedHere = 1;
      failed += failedHere;
    }
    failed += unhandledErrors.length;
    // A process a test started and never stopped fails the run: it would hold a port and a folder after it.
    // The run's shared PostgreSQL stops in the global teardown, after this.
    const left = this.#root ? await leftAfter(this.#root, LEFT_GRACE_MS, (p) => isSharedPostgres(p.command)) : [];
    if (left.length > 0) {
      process.stdout.write(`\n${left.length} process(es) left running after the tests (now stopped):\n`);
      for (const p of left) {
        process.stdout.write(`  ${p.pid} ${p.command.slice(0, 200)}\n`);
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // Gone meanwhile.
        }
      }
      failed += 1;
      // vitest counts only its tests: the exit code must say it too.
      process.exitCode = 1;
    }
    process.stdout.write(`\nvitest: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
