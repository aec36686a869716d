// Reply: the answer to one API request, counted under its route's key, with the rate-limit headers every answer
// after the limiter carries.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Counters } from './counters.ts';
import { send } from './send.ts';

export class Reply {
  /** Headers every answer carries from here on (the rate limiter's). */
  extra: Record<string, string> = {};

  constructor(
    private readonly req: IncomingMessage,
    readonly res: ServerResponse,
    private readonly counters: Counters,
    private readonly key: string,
  ) {}

  /** A JSON answer, counted. */
  answer(status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.counters.record(this.key, status);
    send(this.res, status, body, { ...this.extra, ...headers });
  }

  /** No answer at all: the socket destroyed, counted as dropped (before the work) or lost (after it). */
  destroy(outcome: 'dropped' | 'lost'): void {
    this.counters.record(this.key, outcome);
    this.req.socket.destroy();
  }

  /** Counts an answer written other than as JSON. */
  record(status: number): void {
    this.counters.record(this.key, status);
  }
}
