// What the request queue reports as it works, for metrics and progress (RequestQueueOptions.onEvent).

export type QueueEvent =
  /** A request went on the wire (every attempt counts). */
  | { readonly type: 'request'; readonly method: string; readonly path: string; readonly attempt: number }
  /** A failed attempt will be tried again after delayMs (0 for a 429: the queue-wide pause holds it). */
  | {
      readonly type: 'retry';
      readonly method: string;
      readonly path: string;
      readonly attempt: number;
      readonly delayMs: number;
      readonly reason: string;
    }
  /**
   * A 429 came back; the rate is now `rate` requests/s. `firstOfEpisode` is false for a request that was
   * already admitted when an earlier 429 lowered the rate: it could not have known.
   */
  | {
      readonly type: 'rate-limited';
      readonly method: string;
      readonly path: string;
      readonly retryAfterMs: number | null;
      readonly rate: number;
      readonly firstOfEpisode: boolean;
    }
  /**
   * A 429 without rate headers banned the address: nothing is sent before `bannedUntil`, and the marketplace's
   * window is now `limit` (learnt from the requests sent in the window before it; null: still unknown).
   */
  | {
      readonly type: 'window-learnt';
      readonly limit: { readonly requests: number; readonly seconds: number } | null;
      readonly bannedUntil: number;
    }
  /** The whole queue holds every new request until `until` (epoch ms). */
  | { readonly type: 'paused'; readonly until: number; readonly ms: number }
  /** The first request after a pause went out. */
  | { readonly type: 'resumed'; readonly rate: number }
  /** A request gave up: its last error is thrown to the caller. */
  | {
      readonly type: 'failed';
      readonly method: string;
      readonly path: string;
      readonly attempts: number;
      readonly reason: string;
    };

export type QueueEventType = QueueEvent['type'];
