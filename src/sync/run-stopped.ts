// Reading the client's errors without depending on their classes: the fields every MarketplaceError carries.
import { errorMessage, scrubSecrets } from '../log/scrubber.ts';
import { NotFoundError } from '../marketplace/marketplace-errors.ts';
import { QueueClearedError } from '../queue/queue-cleared-error.ts';

/** A write the run did not begin because it was stopped (a signal, a lost lease): never sent. */
export class RunStoppedError extends Error {
  override readonly name = 'RunStoppedError';
  readonly outcomeUnknown = false;

  constructor(readonly reason: unknown) {
    super(`not begun: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}

/**
 * An archive-and-recreate whose archive went out but whose create was not sent because the run stopped: the old
 * offer is archived and nothing is listed in its place until the next run creates it.
 */
export class StoppedAfterArchiveError extends Error {
  override readonly name = 'StoppedAfterArchiveError';
  readonly outcomeUnknown = false;

  constructor(readonly remoteId: number) {
    super(
      `archived #${remoteId} to re-create it, but the run was stopped before the create was sent: it is not ` +
        'listed until the next run creates it again',
    );
  }
}

/** Never sent because the run stopped: dropped from the cleared request queue, or not begun after the stop. */
export function stoppedBeforeSent(err: unknown): boolean {
  return err instanceof QueueClearedError || err instanceof RunStoppedError;
}

/**
 * The outcome of a write that threw: 'skipped' when the run stopped before it was sent (work not done, not a
 * failure: the next run does it), else 'failed' with the error's message between `prefix` and `suffix`.
 */
export function failure(
  err: unknown,
  prefix = '',
  suffix = '',
  secrets: Iterable<string | undefined> = [],
): { readonly outcome: 'failed' | 'skipped'; readonly message: string } {
  if (err instanceof StoppedAfterArchiveError) return { outcome: 'skipped', message: err.message };
  if (stoppedBeforeSent(err))
    return { outcome: 'skipped', message: 'not sent: the run was stopped before it was sent; the next run sends it' };
  // `secrets`: what the request carried (an account's credentials), which the marketplace may have quoted.
  return { outcome: 'failed', message: scrubSecrets(prefix + errorMessage(err) + suffix, secrets) };
}

export function statusOf(err: unknown): number | undefined {
  const s = (err as { status?: unknown } | null)?.status;
  return typeof s === 'number' ? s : undefined;
}

/** A write that may have happened (5xx, timeout, dropped connection, unreadable answer). */
export function isOutcomeUnknown(err: unknown): boolean {
  return (err as { outcomeUnknown?: unknown } | null)?.outcomeUnknown === true;
}

// Where any layer reads an error as text, secrets scrubbed; kept importable from here for the engine's files.

/** A definite "not there": a 404 with the API's JSON error object. An HTML 404 page or any failure is not. */
export function isDefinitelyNotFound(err: unknown): boolean {
  return err instanceof NotFoundError;
}
