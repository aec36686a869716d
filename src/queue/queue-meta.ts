// Where the queue keeps what one run leaves the next (its learnt rate, when it sent its last request): small
// values by key. The CLI hands it the state db's meta; the queue knows nothing else of the state db.
export interface QueueMeta {
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
}

/** The rateLimit settings (config rateLimit) the queue's start is decided by. */
export interface RateStartSettings {
  /** A number: the rate, fixed; 'auto': found, starting at startPerSec or the rate learnt. */
  readonly ratePerSec: number | 'auto';
  readonly startPerSec: number;
  readonly burst: number;
}
