// "Sync now" between a `reconcile` and the daemon that holds the state db's writer lease, through the state db's
// meta table (sqlite or PostgreSQL alike, no port, no token): the reconcile writes a request, the daemon (which
// polls it) acknowledges it, runs a full sweep and writes the answer with that run's id. The run's report file
// (report/run-report-file.ts) then gives the reconcile the same per-offer summary it would have printed itself.
// One value per key: a later request overwrites an earlier one, and the run that answers the later one started
// after both were made, so it answers both.
import { randomUUID } from 'node:crypto';
import type { RunReport } from '../sync/report/run-report.ts';

export const SYNC_REQUEST_KEY = 'sync.request';
export const SYNC_ACK_KEY = 'sync.ack';
export const SYNC_ANSWER_KEY = 'sync.answer';

/** What sync requests need of a store. */
export interface MetaStore {
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
}

export interface SyncRequest {
  readonly id: string;
  readonly at: string;
}

export interface SyncAnswer {
  readonly id: string;
  readonly runId?: string;
  readonly outcome?: RunReport['outcome'];
  /** The run failed as a whole (the marketplace unreadable, the state db out). */
  readonly error?: string;
}

function read<T extends { id: string }>(text: string | undefined): T | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as T;
    return typeof v?.id === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

export async function readSyncRequest(store: MetaStore): Promise<SyncRequest | undefined> {
  return read<SyncRequest>(await store.getMeta(SYNC_REQUEST_KEY));
}

/**
 * An asker waits a few seconds for its request to be taken up, then gives up: a request older than this is no one's
 * any more. Generous, for replicas on hosts whose clocks differ a little.
 */
export const SYNC_REQUEST_MAX_AGE_MS = 60_000;

/**
 * The request a daemon should take up: one not acknowledged yet and young enough that its asker still waits. A
 * daemon that starts finds the last request of its predecessor in the state db, and must not run it again.
 */
export async function pendingSyncRequest(
  store: MetaStore,
  nowMs: number,
  maxAgeMs = SYNC_REQUEST_MAX_AGE_MS,
): Promise<SyncRequest | undefined> {
  const request = await readSyncRequest(store);
  if (!request) return undefined;
  if (read<{ id: string }>(await store.getMeta(SYNC_ACK_KEY))?.id === request.id) return undefined;
  const at = Date.parse(request.at);
  if (!Number.isFinite(at) || nowMs - at > maxAgeMs) return undefined;
  return request;
}

export async function acknowledge(store: MetaStore, id: string): Promise<void> {
  await store.setMeta(SYNC_ACK_KEY, JSON.stringify({ id }));
}

export async function answer(store: MetaStore, a: SyncAnswer): Promise<void> {
  await store.setMeta(SYNC_ANSWER_KEY, JSON.stringify(a));
}

export interface AskOptions {
  /** How long the lease holder has to acknowledge the request: one that does not is no daemon (or an older one). */
  readonly ackTimeoutMs: number;
  /** How long to wait for the run, once acknowledged. */
  readonly runTimeoutMs: number;
  readonly pollMs: number;
  readonly signal?: AbortSignal;
}

export type AskResult =
  | { readonly kind: 'answered'; readonly answer: SyncAnswer }
  | { readonly kind: 'unanswered'; readonly stage: 'ack' | 'run' };

/** Asks the lease holder to sync now and waits for the run that answers. Bounded by both timeouts. */
export async function askToSyncNow(store: MetaStore, opts: AskOptions): Promise<AskResult> {
  let waitingFor: string = randomUUID();
  await store.setMeta(SYNC_REQUEST_KEY, JSON.stringify({ id: waitingFor, at: new Date().toISOString() }));
  let acked = false;
  const started = Date.now();
  let ackDeadline = started + opts.ackTimeoutMs;
  while (!opts.signal?.aborted) {
    const done = read<SyncAnswer>(await store.getMeta(SYNC_ANSWER_KEY));
    if (done?.id === waitingFor) return { kind: 'answered', answer: done };
    if (!acked && read<{ id: string }>(await store.getMeta(SYNC_ACK_KEY))?.id === waitingFor) acked = true;
    const now = await readSyncRequest(store);
    if (now && now.id !== waitingFor && done?.id !== waitingFor && !acked) {
      // Another reconcile asked after this one, before the daemon picked this up: its run answers both.
      waitingFor = now.id;
      ackDeadline = Date.now() + opts.ackTimeoutMs;
    }
    if (!acked && Date.now() > ackDeadline) return { kind: 'unanswered', stage: 'ack' };
    if (acked && Date.now() > started + opts.runTimeoutMs) return { kind: 'unanswered', stage: 'run' };
    await new Promise((r) => setTimeout(r, opts.pollMs));
  }
  return { kind: 'unanswered', stage: acked ? 'run' : 'ack' };
}
