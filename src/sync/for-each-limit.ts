// Runs fn over items with at most `limit` in flight. The executor never starts all of a 100k-offer plan at
// once: every started task holds its request body and a journal entry until the queue lets it go.
export async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    // Once stopped, the items not started are left alone: the next run plans them again.
    while (next < items.length && !signal?.aborted) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** In-flight window of the executor: enough to keep a saturated request queue fed, small enough for memory. */
export const EXECUTOR_WINDOW = 64;
