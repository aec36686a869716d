// The window budgets of one process, one per scope (a marketplace host, or a host and API key): every seller the
// fleet daemon serves that reaches the same marketplace from this address shares one, as the marketplace
// counts their requests together.
import { WindowBudget } from './window-budget.ts';

export class WindowBudgets {
  readonly #byScope = new Map<string, WindowBudget>();

  /** The scope's budget, made on first use with `learnWindowMs` (later callers share the first one's). */
  budget(scope: string, learnWindowMs: number): WindowBudget {
    let b = this.#byScope.get(scope);
    if (!b) {
      b = new WindowBudget(learnWindowMs);
      this.#byScope.set(scope, b);
    }
    return b;
  }
}

/** The process's budgets: what the services of every seller of this process share. */
export const processWindowBudgets = new WindowBudgets();
