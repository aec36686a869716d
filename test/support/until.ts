// Polling with a bound: a test waits for something a child process or a server does, never longer than `ms`, and
// fails naming what it waited for. The bound is a safety net, not a timed assertion.

/**
 * Calls fn every `everyMs` until it gives a value other than undefined or false, and returns that value; throws
 * after `ms`.
 */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 20_000,
  everyMs = 200,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
