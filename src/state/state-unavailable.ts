// Whether an error says the state db could not be reached (as opposed to a statement it refused): the database
// stopped, restarting, unreachable, or a connection that was not made in time. Such a run is tried again soon.

/** Errors of the network and of PostgreSQL's "cannot serve now" class (57P0x), and pg's pool timing out. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);

export function isStateUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('57P'))) return true;
    if (/Connection terminated|timeout exceeded when trying to connect|Connection ended/.test(e.message)) return true;
  }
  return false;
}
