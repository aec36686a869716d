// Group commit: the state writes asked for while the event loop turns (journal rows of writes about to leave,
// settlements, offer records) wait for the turn to end and go to the database as one batch, committed before any
// of them answers: one commit (sqlite) or a few statements (PostgreSQL) for many writes, not one per statement.
// A journal row still commits before its write is sent: journalBegin answers only once its batch committed.
import { setImmediate } from 'node:timers';
import type { HotAnswer, HotOp, HotStatements } from './hot-ops.ts';

/** Ops per batch at most: a batch's statements stay small and its answer comes soon. */
export const GROUP_MAX = 512;

interface Waiting {
  readonly op: HotOp;
  readonly resolve: (answer: never) => void;
  readonly reject: (err: unknown) => void;
}

export class GroupCommit {
  readonly #statements: HotStatements;
  readonly #seller: string;
  #queue: Waiting[] = [];
  #draining = false;

  constructor(statements: HotStatements, seller: string) {
    this.#statements = statements;
    this.#seller = seller;
  }

  /** Runs op in the next batch; answers once that batch committed. */
  ask<O extends HotOp>(op: O): Promise<HotAnswer<O>> {
    return new Promise<HotAnswer<O>>((resolve, reject) => {
      this.#queue.push({ op, resolve: resolve as (answer: never) => void, reject });
      if (!this.#draining) {
        this.#draining = true;
        // node:timers, not the global: a test's fake timers must not hold the state db's writes.
        setImmediate(() => void this.#drain());
      }
    });
  }

  /** One batch at a time: while one commits, the next gathers, so batches grow with the load. */
  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, GROUP_MAX);
        await this.#run(batch);
        if (this.#queue.length > 0) await new Promise<void>((r) => setImmediate(r));
      }
    } finally {
      this.#draining = false;
    }
  }

  async #run(batch: readonly Waiting[]): Promise<void> {
    try {
      const answers = await this.#statements.run(
        this.#seller,
        batch.map((w) => w.op),
      );
      for (const [i, w] of batch.entries()) w.resolve(answers[i] as never);
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      // The batch was rolled back whole: each op again on its own, so only the one at fault fails.
      for (const w of batch) await this.#run([w]);
    }
  }
}
