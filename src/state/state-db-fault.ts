// What went wrong with the state db itself (as opposed to a statement it refused or a database that does not
// answer, state-unavailable.ts), and the paragraph a person reads about it: what happened, what was done, what to do.
// A stack trace says none of these.

import { redactUrl } from './postgres-error.ts';

/** A full disk, a damaged file, a file offersync may not open, or another read or write error of the disk. */
export type StateDbFault = 'full' | 'damaged' | 'denied' | 'io';

const FAULT_OF_CODE: Readonly<Record<string, StateDbFault>> = {
  SQLITE_FULL: 'full',
  ENOSPC: 'full',
  EDQUOT: 'full',
  EFBIG: 'full',
  SQLITE_CORRUPT: 'damaged',
  SQLITE_NOTADB: 'damaged',
  SQLITE_READONLY: 'denied',
  SQLITE_PERM: 'denied',
  SQLITE_CANTOPEN: 'denied',
  SQLITE_AUTH: 'denied',
  EACCES: 'denied',
  EPERM: 'denied',
  EROFS: 'denied',
  // PostgreSQL: disk full (53100), data corrupted (XX001, XX002).
  '53100': 'full',
  XX001: 'damaged',
  XX002: 'damaged',
};

/** The fault an error (or one of its causes) reports, or undefined when it is not one of the state db's. */
export function stateDbFault(err: unknown): StateDbFault | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof StateDbError) return e.fault;
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    // An extended SQLite code (SQLITE_READONLY_DBMOVED) is its primary one's fault.
    const fault = FAULT_OF_CODE[code] ?? FAULT_OF_CODE[/^SQLITE_[A-Z]+/.exec(code)?.[0] ?? ''];
    if (fault) return fault;
    if (code.startsWith('SQLITE_IOERR')) return 'io';
  }
  return undefined;
}

/** Where the state db is, as a person may read it: the file, or the URL without its password. */
export function stateDbShownAs(state: { readonly url: string; readonly path: string }): string {
  return state.url ? redactUrl(state.url) : state.path;
}

/** The state db could not be opened: its location and the fault, for the paragraph. */
export class StateDbError extends Error {
  override readonly name = 'StateDbError';
  constructor(
    /** The sqlite file, or the PostgreSQL URL without its password. */
    readonly location: string,
    readonly fault: StateDbFault,
    cause: unknown,
  ) {
    super(stateDbParagraph(location, fault, cause, { phase: 'open' }), { cause });
  }
}

export interface FaultContext {
  /** 'open': nothing was sent yet. 'run': the run had started; `requests` it had sent. */
  readonly phase: 'open' | 'run';
  readonly requests?: number;
}

/** One plain paragraph: what happened, what offersync did, what to do. */
export function stateDbParagraph(location: string, fault: StateDbFault, cause: unknown, at: FaultContext): string {
  const detail = cause instanceof Error ? cause.message : String(cause);
  const what: Record<StateDbFault, string> = {
    full: `the disk that holds the state db ${location} is full (${detail})`,
    damaged: `the state db ${location} is damaged or is not a state db (${detail})`,
    denied: `the state db ${location} cannot be opened for writing (${detail})`,
    io: `the state db ${location} could not be read or written (${detail}): the disk may be full or failing`,
  };
  const done =
    at.phase === 'open'
      ? 'Nothing was sent to the marketplace.'
      : `The run stopped and started no further write. ${
          at.requests && at.requests > 0
            ? `The requests it had sent (${at.requests}) reached the marketplace: the next run finds those offers ` +
              'by external_id and records them, and creates none of them twice.'
            : 'Nothing had been sent.'
        }`;
  const todo: Record<StateDbFault, string> = {
    full: 'free space on that disk, then run offersync again.',
    damaged:
      `move the file aside (mv ${location} ${location}.damaged) and run offersync again: it starts a new state ` +
      'db and adopts your live offers by external_id, creating none twice. The history and sales kept in the old ' +
      'file stay in it.',
    denied:
      'run offersync as the user that owns the file, give that user write access to it and its folder, or point ' +
      'state.path at a folder offersync can write.',
    io: 'check the disk (free space, dmesg), then run offersync again.',
  };
  return `${capitalise(what[fault])}. ${done} What to do: ${todo[fault]}`;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
