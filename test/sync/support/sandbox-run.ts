// The setup of a test file that runs parts of a reconcile run (routes, executor, journal) against the sandbox.
import { afterEach, beforeEach } from 'vitest';
import type { MarketplaceClient } from '../../../src/marketplace/marketplace-client.ts';
import { openStateStore } from '../../../src/state/open-state-store.ts';
import type { KyselyStateStore } from '../../../src/state/kysely-state-store.ts';
import { type Sandbox, standIn, useContract } from '../../marketplace/support/contract.ts';
import { type RecordingClient, recordingClient } from '../../support/recording-client.ts';

export interface SandboxRun {
  /** One sandbox for the file, its faults cleared after each test. */
  readonly sandbox: Sandbox;
  /** The real client to that sandbox. */
  readonly raw: MarketplaceClient;
  /** A recording client over raw, fresh for each test. */
  readonly rec: RecordingClient;
  /** An in-memory state db, fresh for each test and closed after it. */
  readonly store: KyselyStateStore;
}

/**
 * Registers the hooks and returns objects that stand for the current sandbox, client, recording client and state
 * db: a test file's beforeEach registered after this call sees them ready.
 */
export function useSandboxRun(): SandboxRun {
  const { sandbox, client: raw } = useContract();
  let current: { rec: RecordingClient; store: KyselyStateStore } | undefined;
  beforeEach(async () => {
    current = { store: await openStateStore(':memory:'), rec: recordingClient(raw) };
  });
  afterEach(() => {
    current?.store.close();
    current = undefined;
  });
  const now = () => {
    if (!current) throw new Error('useSandboxRun: the state db is opened in beforeEach; use it inside a test');
    return current;
  };
  return { sandbox, raw, rec: standIn(() => now().rec), store: standIn(() => now().store) };
}
