// Whose turn it is to write an offer when two runs share the queue: the daemon's running run (the backlog) and a
// run that plans a catalogue change at once (docs/architecture.md, Money first). Each run has an epoch; a later
// run claims the offers it writes, so an earlier run's write of them not yet started is dropped (the later plan
// replaces it), and a write of them already started is waited for. One offer never has two writes in flight,
// and never an older plan's write after a newer one's.
import { offerKey } from '../../catalogue/identity.ts';
import type { OfferKind } from '../../catalogue/desired-offer.ts';

/** A run's place among the runs that share the queue. */
export interface RunTurn {
  readonly turns: OfferTurns;
  readonly epoch: number;
  /**
   * Claims the offers it writes: a run that joins a working one. The working run claims none (no run before it
   * shares the queue), so a first sync of 100,000 offers keeps no claim per offer.
   */
  readonly claims: boolean;
}

export class OfferTurns {
  /** The newest epoch that claimed each offer. */
  readonly #claims = new Map<string, number>();
  /** The write of each offer now in flight. */
  readonly #busy = new Map<string, Promise<void>>();
  #epoch = 0;

  /** A new run's epoch, later than every earlier one. */
  begin(claims: boolean): RunTurn {
    this.#epoch++;
    return { turns: this, epoch: this.#epoch, claims };
  }

  /** Later writes of these offers are this run's: an earlier run drops those it has not started. */
  claim(epoch: number, offers: Iterable<{ readonly kind: OfferKind; readonly externalId: string }>): void {
    for (const o of offers) {
      const key = offerKey(o.kind, o.externalId);
      if ((this.#claims.get(key) ?? 0) < epoch) this.#claims.set(key, epoch);
    }
  }

  /** The epoch of a later run that claimed the offer, if any. */
  supersededBy(epoch: number, kind: OfferKind, externalId: string): number | undefined {
    const by = this.#claims.get(offerKey(kind, externalId));
    return by !== undefined && by > epoch ? by : undefined;
  }

  /**
   * Runs `write` for these offers after every write of them taken before (one at a time per offer, in the order
   * taken), unless a later run claimed one of them, before or during the wait: then returns false, writing nothing.
   */
  async take(
    epoch: number,
    offers: readonly { readonly kind: OfferKind; readonly externalId: string }[],
    write: () => Promise<void>,
  ): Promise<boolean> {
    const superseded = () => offers.some((o) => this.supersededBy(epoch, o.kind, o.externalId) !== undefined);
    if (superseded()) return false;
    const keys = offers.map((o) => offerKey(o.kind, o.externalId));
    const before = keys.map((k) => this.#busy.get(k)).filter((p): p is Promise<void> => p !== undefined);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    // Taken at once for every offer: whoever takes one of them next waits for this write.
    const tail = Promise.all([...before, mine]).then(() => undefined);
    for (const k of keys) this.#busy.set(k, tail);
    try {
      await Promise.all(before);
      if (superseded()) return false;
      await write();
      return true;
    } finally {
      done();
      for (const k of keys) if (this.#busy.get(k) === tail) this.#busy.delete(k);
    }
  }

  /** No run is going: the claims are spent. */
  clear(): void {
    if (this.#busy.size === 0) this.#claims.clear();
  }
}
