// Reading the client's errors without depending on their classes: the fields every MarketplaceError carries.
import { scrubSecrets } from '../log/logger.ts';
import { NotFoundError } from '../marketplace/errors.ts';

export function statusOf(err: unknown): number | undefined {
  const s = (err as { status?: unknown } | null)?.status;
  return typeof s === 'number' ? s : undefined;
}

/** A write that may have happened (5xx, timeout, dropped connection, unreadable answer). */
export function isOutcomeUnknown(err: unknown): boolean {
  return (err as { outcomeUnknown?: unknown } | null)?.outcomeUnknown === true;
}

export function errorMessage(err: unknown): string {
  return scrubSecrets(err instanceof Error ? err.message : String(err));
}

/** A definite "not there": a 404 with the API's JSON error object. An HTML 404 page or any failure is not. */
export function isDefinitelyNotFound(err: unknown): boolean {
  return err instanceof NotFoundError;
}
