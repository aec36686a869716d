// A cron schedule on the monotonic clock. node-cron arms its timer for a wall-clock time and checks the wall
// clock when it fires: after a step back of an hour it waits that hour again, and its runs stop meanwhile. Here
// the cron expression only says how long to wait, measured when the timer is armed; the timer (setTimeout) runs
// on the monotonic clock, so a wall-clock step moves at most the one run already armed.
import { createTask, type ScheduledTask } from 'node-cron';

/** setTimeout's longest delay is 2^31 - 1 ms; a longer wait is armed again when it ends. */
const LONGEST_WAIT_MS = 2 ** 31 - 1;

export class CronSchedule {
  /** Never started: it only reads the expression's next matches. */
  readonly #matches: ScheduledTask;
  readonly #run: () => void;
  #timer: NodeJS.Timeout | undefined;
  /** Epoch ms (wall clock when armed) of the next run; null when stopped. */
  #next: number | null = null;

  constructor(expression: string, run: () => void) {
    this.#matches = createTask(expression, () => undefined);
    this.#run = run;
  }

  start(): void {
    this.#arm(null);
  }

  /** When the next run comes, as the wall clock read when it was armed; null when stopped. */
  nextRun(): number | null {
    return this.#next;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#next = null;
  }

  /** `after`: the run that just fired; its slot is done even if the wall clock reads a hair before it. */
  #arm(after: number | null): void {
    const [first, second] = this.#matches.getNextRuns(2).map((d) => d.getTime());
    if (first === undefined || second === undefined) return;
    const next = after !== null && first <= after ? second : first;
    const wait = next - Date.now();
    this.#next = next;
    const due = wait <= LONGEST_WAIT_MS;
    this.#timer = setTimeout(
      () => {
        if (due) this.#run();
        this.#arm(due ? next : null);
      },
      Math.max(0, Math.min(wait, LONGEST_WAIT_MS)),
    );
    this.#timer.unref();
  }
}
