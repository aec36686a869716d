// Runs fn over items with at most `limit` in flight. The executor never starts all of a 100k-offer plan at
// once: every started task holds its request body and a journal entry until the queue lets it go.
export async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** In-flight window of the executor: enough to keep a saturated request queue fed, small enough for memory. */
export const EXECUTOR_WINDOW = 64;
