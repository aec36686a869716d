// sqlite's one connection, taken in turn by kysely's queries and transactions and by the hot ops. A holder runs
// alone on it; the others wait in arrival order. Taking it when free costs no promise, so a batch of hot ops on
// an idle connection runs at once.

export class ConnectionLock {
  #held = false;
  readonly #waiting: (() => void)[] = [];

  /** True, and held by the caller, when the connection was free. */
  tryTake(): boolean {
    if (this.#held) return false;
    this.#held = true;
    return true;
  }

  /** Resolves once the caller holds the connection. */
  take(): Promise<void> {
    if (this.tryTake()) return Promise.resolve();
    return new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the connection to the next waiting, or frees it. */
  free(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}
