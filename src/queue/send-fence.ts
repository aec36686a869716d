// What a request must pass as it leaves the queue, after its rate token, just before it goes on the wire: a
// write journalled while its sender held the writer lease may wait for a token long after the lease was lost
// (a process paused, then resumed), and it must not go then. Declared here by shape (writer-lease.ts's HeldLease
// fits it): queue and state never import each other.

export interface SendFence {
  /** Resolves when the request may go now; rejects when it may not (the request is dropped, never sent). */
  pass(): Promise<void>;
  /** Aborted when nothing may go any more: every request still waiting is dropped at once. */
  readonly closed: AbortSignal;
}

/** The fences a queue's requests must pass, installed and removed by their holders. */
export class SendFences {
  readonly #fences = new Set<SendFence>();

  /** Adds `fence`; calls onClosed when it closes. Returns its removal. */
  add(fence: SendFence, onClosed: () => void): () => void {
    this.#fences.add(fence);
    const closed = (): void => onClosed();
    fence.closed.addEventListener('abort', closed, { once: true });
    if (fence.closed.aborted) onClosed();
    return () => {
      this.#fences.delete(fence);
      fence.closed.removeEventListener('abort', closed);
    };
  }

  get empty(): boolean {
    return this.#fences.size === 0;
  }

  /** Resolves when every fence lets a request go now. */
  async pass(): Promise<void> {
    for (const fence of this.#fences) await fence.pass();
  }
}
