// Builds the running parts from a Config: logger, state db, request queue, client, catalogue, reconciler deps.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Catalogue } from '../catalogue/catalogue.ts';
import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/load-config.ts';
import { createLogger, registerSecret, type Logger } from '../log/logger.ts';
import type { MarketplaceClient } from '../marketplace/marketplace-client.ts';
import { createMarketplaceClient } from '../marketplace/undici-marketplace-client.ts';
import { RequestQueue } from '../queue/request-queue.ts';
import { openStateStore } from '../state/sqlite-state-store.ts';
import type { StateStore } from '../state/state-store.ts';
import { capabilityUsable } from '../state/capability-reprobe.ts';
import { loadCredentialsKey } from '../sync/credentials-key.ts';
import { type LearntRate, loadLearntRate, saveLearntRate, startRate } from './learnt-rate.ts';
import type { ReconcileDeps, ReconcilerSettings } from '../sync/reconciler.ts';
import { NOTIFY_EVENTS, type NotifyEvent } from '../daemon/notification.ts';
import { RunNotifier } from '../daemon/run-notifier.ts';
import { WebhookNotifier, type WebhookTarget } from '../daemon/webhook-notifier.ts';

export interface Services {
  readonly config: Config;
  readonly logger: Logger;
  readonly store: StateStore;
  readonly queue: RequestQueue;
  readonly client: MarketplaceClient;
  readonly catalogue: Catalogue;
  readonly reconcileDeps: ReconcileDeps;
  /** Tells the seller's webhooks what a run did (config notify); close() leaves its deliveries to finish. */
  readonly notifier: RunNotifier;
  close(): Promise<void>;
}

export function webhookTargets(config: Config): WebhookTarget[] {
  const on = NOTIFY_EVENTS.filter((e) => config.notify.events[e]);
  return config.notify.webhooks.map((w) => {
    const url = typeof w === 'string' ? w : w.url;
    const wanted: readonly NotifyEvent[] = typeof w === 'string' ? NOTIFY_EVENTS : w.events;
    return { url, events: new Set(on.filter((e) => wanted.includes(e))) };
  });
}

export function notifySeller(config: Config): string {
  return config.notify.seller || new URL(config.baseUrl).hostname;
}

export function reconcilerSettings(config: Config): ReconcilerSettings {
  return {
    planner: {
      defaultStatus: config.defaults.status,
      prune: config.sync.prune,
      ownedPattern: config.sync.ownedPattern ? new RegExp(config.sync.ownedPattern) : null,
      drift: config.sync.drift,
      updateFallback: config.accounts.updateFallback,
      guard: config.guard,
      bulk: { removeSize: config.bulk.removeSize, topUpUpdateSize: config.bulk.topUpUpdateSize },
    },
    executor: { createAttempts: 3 },
    perPage: config.lists.perPage,
    statePath: config.state.path,
    leaseTtlMs: config.state.leaseTtlMs,
  };
}

export function openStore(config: Config, logger: Logger): StateStore {
  if (config.state.path !== ':memory:') mkdirSync(dirname(config.state.path), { recursive: true, mode: 0o700 });
  return openStateStore(config.state.path, { logger, keepRuns: config.state.keepRuns });
}

const LAST_REQUEST_KEY = 'queue.lastRequestAt';

/**
 * Tokens a new queue may start with: only what the marketplace can have refilled since the last run on this
 * state db sent its last request (it may have ended with the server's bucket empty). Costs at most
 * burst / rate seconds at start; saves a 429 and its Retry-After pause when runs follow each other.
 */
export function startTokens(store: StateStore, config: Config, now: number, learnt?: LearntRate): number {
  const last = Number(store.getMeta(LAST_REQUEST_KEY) ?? 0);
  const refilled = ((now - last) / 1000) * startRate(config, learnt);
  return Math.max(0, Math.min(config.rateLimit.burst, refilled));
}

export function openServices(config: Config, opts: { logger?: Logger } = {}): Services {
  if (!config.apiKey) {
    throw new ConfigError('no API key: set OFFERSYNC_API_KEY, or OFFERSYNC_API_KEY_FILE naming a file that holds it');
  }
  registerSecret(config.apiKey);
  const logger = opts.logger ?? createLogger({ level: config.log.level });
  const store = openStore(config, logger);
  const auto = config.rateLimit.ratePerSec === 'auto';
  const learnt = auto ? loadLearntRate(store, Date.now()) : undefined;
  const queue = new RequestQueue({
    ratePerSec: config.rateLimit.ratePerSec,
    startRatePerSec: startRate(config, learnt),
    ...(learnt?.hold ? { startHoldPerSec: learnt.hold.ratePerSec } : {}),
    increasePerSec: auto ? config.rateLimit.startPerSec : config.rateLimit.ratePerSec * 0.1,
    burst: config.rateLimit.burst,
    startTokens: startTokens(store, config, Date.now(), learnt),
    concurrency: config.rateLimit.concurrency,
    maxAttempts: config.rateLimit.maxAttempts,
    logger,
  });
  const client = createMarketplaceClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    insecure: config.insecure,
    timeoutMs: config.http.timeoutMs,
    // Never fewer connections than requests in flight: a request waiting inside the pool has already spent
    // its token, and several such requests leaving together undo the pacing (a 429 from a server at its limit).
    connections: Math.max(config.http.connections, config.rateLimit.concurrency),
    schedule: queue.schedule,
    limitWindowSec: config.rateLimit.limitWindowSec,
    capabilities: {
      usable: (name) =>
        capabilityUsable(store.getCapability(name), Date.now(), config.capabilities.reprobeAfterHours * 3_600_000),
      remember: (name, usable, detail) => store.setCapability(name, usable, detail),
    },
    list: {
      sortParam: config.lists.sortParam,
      perPageParam: config.lists.perPageParam,
      pageParam: config.lists.pageParam,
      filterParam: config.lists.filterParam,
      perPage: config.lists.perPage,
    },
    logger,
  });
  const catalogue = new Catalogue({
    dir: config.catalogue.dir,
    credentialsKey: loadCredentialsKey(config.state.path),
    maxFileBytes: config.catalogue.maxFileBytes,
    maxImageBytes: config.catalogue.maxImageBytes,
    csv: { csvDelimiter: config.catalogue.csv.delimiter, decimalMark: config.catalogue.csv.decimalMark },
    logger,
  });
  const notifier = new RunNotifier(
    store,
    new WebhookNotifier({
      targets: webhookTargets(config),
      maxAttempts: config.notify.maxAttempts,
      timeoutMs: config.notify.timeoutMs,
      logger,
    }),
    notifySeller(config),
  );
  const reconcileDeps: ReconcileDeps = {
    client,
    store,
    logger,
    loadCatalogue: () => catalogue.load(),
    settings: reconcilerSettings(config),
    requestCount: () => queue.stats().requests,
  };
  return {
    config,
    logger,
    store,
    queue,
    client,
    catalogue,
    reconcileDeps,
    notifier,
    async close() {
      await client.close();
      if (queue.stats().requests > 0) {
        store.setMeta(LAST_REQUEST_KEY, String(Date.now()));
        if (auto) saveLearntRate(store, learnt, queue.stats(), Date.now());
      }
      store.close();
    },
  };
}
