// Builds the running parts from a Config: logger, state db, request queue, client, catalogue, reconciler deps.
import { stateConnection } from '../config/state-connection.ts';
import { Catalogue } from '../catalogue/catalogue.ts';
import { accountFingerprint } from '../catalogue/account-fingerprint.ts';
import { credentialsHmac, Hmac256 } from '../catalogue/hash.ts';
import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/load-config.ts';
import { createLogger, type Logger } from '../log/logger.ts';
import { registerSecret } from '../log/scrubber.ts';
import type { MarketplaceClient } from '../marketplace/marketplace-client.ts';
import type { MarketplaceClientOptions, ResponseObserved } from '../marketplace/marketplace-client-options.ts';
import type { QueueEvent } from '../queue/queue-event.ts';
import { createMarketplaceClient } from '../marketplace/undici-marketplace-client.ts';
import { plainHttpVerdict } from '../marketplace/plain-http.ts';
import { RequestQueue } from '../queue/request-queue.ts';
import type { RequestQueueOptions } from '../queue/request-queue-options.ts';
import { openSellerStateStore, type StateLocation } from '../state/open-state-store.ts';
import type { StateStore } from '../state/state-store.ts';
import type { PostgresStateDatabase } from '../state/postgres-state-database.ts';
import { deriveCredentialsKey, loadCredentialsKey } from '../state/credentials-key.ts';
import { type SalesLedger, salesLedger } from '../sales/sales-ledger.ts';
import { loadQueueStart, saveQueueEnd } from '../queue/carry-over.ts';
import { loadLearntWindow, saveLearntWindow } from '../queue/learnt-window.ts';
import type { QueueMeta } from '../queue/queue-meta.ts';
import type { WindowBudgets } from '../queue/window-budgets.ts';
import { windowBudgetOf, windowScope } from './window-scope.ts';
import { type LearntRate, startRate } from '../queue/learnt-rate.ts';
import { capabilityFilePath, restoreCapabilities, withCapabilityFile } from '../capabilities/capability-file.ts';
import { openCapabilities } from '../capabilities/open-capabilities.ts';
import type { ReconcileDeps, ReconcilerSettings } from '../sync/reconciler.ts';
import { NOTIFY_EVENTS, type NotifyEvent } from '../notify/notification.ts';
import { RunNotifier } from '../notify/run-notifier.ts';
import { sellerGroupWiring } from './seller-group.ts';
import type { SellerView } from '../status/status-board.ts';
import { WebhookNotifier, type WebhookTarget } from '../notify/webhook-notifier.ts';

export interface Services {
  readonly config: Config;
  readonly logger: Logger;
  readonly store: StateStore;
  readonly queue: RequestQueue;
  readonly client: MarketplaceClient;
  readonly catalogue: Catalogue;
  readonly reconcileDeps: ReconcileDeps;
  /** The seller's sales: the state db's with PostgreSQL, else sold.jsonl beside it. */
  readonly sales: SalesLedger;
  /** Tells the seller's webhooks what a run did (config notify); close() leaves its deliveries to finish. */
  readonly notifier: RunNotifier;
  /** What a person must know of this setup at every start (plain http with `insecure`): logged, and shown. */
  readonly notices: readonly string[];
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

/** The status page's seller: the shop's name when configured, and the seller id; never the marketplace's host. */
export function statusSeller(config: Config): SellerView {
  return { name: config.notify.seller || null, id: config.seller };
}

export function notifySeller(config: Config): string {
  // One of several sellers: its id tells the notifications apart.
  const own = config.seller === 'default' ? '' : config.seller;
  return config.notify.seller || own || new URL(config.baseUrl).hostname;
}

/** capabilities.reprobeAfterHours, in ms: how long a refused capability is not asked again. */
export function reprobeAfterMs(config: Config): number {
  return config.capabilities.reprobeAfterHours * 3_600_000;
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
      priceGuard: {
        maxPriceChangePercent: config.guard.maxPriceChangePercent,
        maxPriceChangeMin: config.guard.maxPriceChangeMin,
      },
      bulk: {
        removeSize: config.bulk.removeSize,
        topUpUpdateSize: config.bulk.topUpUpdateSize,
        itemUpdateSize: config.bulk.itemUpdateSize,
      },
    },
    executor: { createAttempts: 3 },
    offerBackoff: {
      initialMs: config.offerBackoff.initialSeconds * 1000,
      maxMs: config.offerBackoff.maxHours * 3_600_000,
      parkAfter: config.offerBackoff.parkAfter,
    },
    reprobeAfterMs: reprobeAfterMs(config),
    perPage: config.lists.perPage,
    statePath: config.state.path,
    // Replicas share no disk: with PostgreSQL a sale is kept in the state db, not on the replica that saw it.
    salesInState: config.state.url !== '',
    leaseTtlMs: config.state.leaseTtlMs,
    keepReports: config.state.keepRuns,
  };
}

/** The seller's state; with PostgreSQL, on `database` when the process shares one pool between sellers. */
export function openStore(config: Config, logger: Logger, database?: PostgresStateDatabase): Promise<StateStore> {
  return openSellerStateStore(stateLocation(config), config.seller, { logger, ...(database ? { database } : {}) });
}

export function stateLocation(config: Config): StateLocation {
  return { path: config.state.path, keepRuns: config.state.keepRuns, ...stateConnection(config) };
}

/** Secrets of the state URL, so no log line can carry them. */
function registerStateSecrets(config: Config): void {
  if (config.statePassword) registerSecret(config.statePassword);
  if (!config.state.url) return;
  try {
    const password = decodeURIComponent(new URL(config.state.url).password);
    if (password) registerSecret(password);
  } catch {
    // not a URL: the store refuses it without echoing it
  }
}

/** Hooks that watch every request and queue event (the daemon's metrics). */
export interface ServiceObservers {
  readonly onResponse?: (r: ResponseObserved) => void;
  readonly onQueueEvent?: (e: QueueEvent) => void;
}

/** The request queue as the configuration sets it (and the rate a seller's last runs learnt, when there is one). */
export function queueOptions(
  config: Config,
  learnt: LearntRate | undefined,
  logger: Logger,
  budgets?: WindowBudgets,
): RequestQueueOptions {
  return {
    ratePerSec: config.rateLimit.ratePerSec,
    startRatePerSec: startRate(config.rateLimit, learnt),
    ...(learnt?.hold ? { startHoldPerSec: learnt.hold.ratePerSec } : {}),
    increasePerSec:
      config.rateLimit.ratePerSec === 'auto' ? config.rateLimit.startPerSec : config.rateLimit.ratePerSec * 0.1,
    burst: config.rateLimit.burst,
    concurrency: config.rateLimit.concurrency,
    maxAttempts: config.rateLimit.maxAttempts,
    maxRetryAfterMs: config.rateLimit.maxRetryAfterSeconds * 1000,
    window: windowBudgetOf(config, budgets),
    logger,
  };
}

/** The marketplace client as the configuration sets it; a command adds its capability memory and observers. */
export function clientOptions(
  config: Config,
  schedule: MarketplaceClientOptions['schedule'],
  logger: Logger,
): MarketplaceClientOptions {
  return {
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    insecure: config.insecure,
    timeoutMs: config.http.timeoutMs,
    idleTimeoutMs: config.http.idleTimeoutMs,
    maxBodyBytes: config.http.maxBodyBytes,
    // Never fewer connections than requests in flight: a request waiting inside the pool has already spent
    // its token, and several such requests leaving together undo the pacing (a 429 from a server at its limit).
    connections: Math.max(config.http.connections, config.rateLimit.concurrency),
    schedule,
    limitWindowSec: config.rateLimit.limitWindowSec,
    list: {
      sortParam: config.lists.sortParam,
      perPageParam: config.lists.perPageParam,
      pageParam: config.lists.pageParam,
      filterParam: config.lists.filterParam,
      perPage: config.lists.perPage,
    },
    logger,
  };
}

export async function openServices(
  config: Config,
  opts: {
    logger?: Logger;
    database?: PostgresStateDatabase;
    observe?: ServiceObservers;
    /** The window budgets shared with the other sellers of this process. Default: the process's own. */
    windowBudgets?: WindowBudgets;
  } = {},
): Promise<Services> {
  if (!config.apiKey) {
    throw new ConfigError(
      config.seller === 'default' && config.sellerConfigs.length === 0
        ? 'no API key: set OFFERSYNC_API_KEY, or OFFERSYNC_API_KEY_FILE naming a file that holds it'
        : `seller ${config.seller}: no API key: ` +
            'its apiKeyFile must name a readable file, or its apiKeyEnv a set variable',
    );
  }
  // Before anything is written (the state db, its key file): a refused setup leaves no trace.
  const plainHttp = plainHttpVerdict(config.baseUrl, config.insecure);
  if (plainHttp.kind === 'refused') throw new ConfigError(plainHttp.message);
  registerSecret(config.apiKey);
  registerStateSecrets(config);
  const logger = (opts.logger ?? createLogger({ level: config.log.level, format: config.log.format })).child({
    seller: config.seller,
  });
  const notices = plainHttp.kind === 'warned' ? [plainHttp.message] : [];
  for (const notice of notices) logger.warn({ baseUrl: new URL(config.baseUrl).origin }, notice);
  const opened = await openStore(config, logger, opts.database);
  // What was learnt of the marketplace outlives a lost state db in a file beside it.
  const capabilityFile = capabilityFilePath(config.state.path, config.state.url);
  if (capabilityFile) await restoreCapabilities(opened, capabilityFile);
  const store = capabilityFile
    ? withCapabilityFile(opened, capabilityFile, (err) =>
        logger.warn({ file: capabilityFile, err: err.message }, 'could not keep a copy of what was learnt'),
      )
    : opened;
  const start = await loadQueueStart(store, config.rateLimit, Date.now());
  const capabilities = await openCapabilities({ store, now: Date.now, reprobeAfterMs: reprobeAfterMs(config), logger });
  const windowShared: QueueMeta = {
    getMeta: (k) => store.getSharedMeta(k),
    setMeta: (k, v) => store.setSharedMeta(k, v),
  };
  const scope = windowScope(config);
  const options = queueOptions(config, start.learnt, logger, opts.windowBudgets);
  const stored = await loadLearntWindow(windowShared, scope);
  if (stored.bannedUntil > Date.now())
    logger.warn(
      { until: new Date(stored.bannedUntil).toISOString() },
      'the marketplace banned this address after a 429 (its website too); nothing is sent before the ban ends',
    );
  // A window set by hand is the seller's word; a ban still in force is the marketplace's.
  options.window?.adopt(config.rateLimit.window ? { ...stored, limit: null } : stored);
  let windowSaved: Promise<void> = Promise.resolve();
  const saveWindow = () => {
    const state = options.window?.state(Date.now());
    if (!state) return;
    windowSaved = windowSaved
      .then(() => saveLearntWindow(windowShared, scope, state))
      .catch((err: unknown) => logger.warn({ err }, 'could not keep the marketplace window learnt in the state db'));
  };
  const queue = new RequestQueue({
    ...options,
    startTokens: start.startTokens,
    onEvent: (e) => {
      opts.observe?.onQueueEvent?.(e);
      // At once, not only at close: a run killed during the ban must not teach the next one nothing.
      if (e.type === 'window-learnt') saveWindow();
    },
  });
  // Replicas share a PostgreSQL state but no disk: the key comes from what they share, the API key.
  const credentialsKey = config.state.url ? deriveCredentialsKey(config.apiKey) : loadCredentialsKey(config.state.path);
  const seal = new Hmac256(credentialsKey);
  // A seller of a group fingerprints logins with the group's key, so that its sellers know one account as one.
  const group = await sellerGroupWiring(config, opened);
  const fingerprintSeal = group ? new Hmac256(group.fingerprintKey) : seal;
  const client = createMarketplaceClient({
    ...clientOptions(config, queue.schedule, logger),
    capabilities,
    onResponse: opts.observe?.onResponse,
    // Credentials a server returns are compared by the catalogue's own HMAC, never kept.
    sealCredentials: (c) => credentialsHmac(seal, c),
    // Which account an offer made by hand sells, by the catalogue's own fingerprint: the login is not kept.
    fingerprintLogin: (c) => accountFingerprint(fingerprintSeal, c),
  });
  const catalogue = new Catalogue({
    dir: config.catalogue.dir,
    credentialsKey,
    ...(group ? { fingerprintKey: group.fingerprintKey } : {}),
    maxFileBytes: config.catalogue.maxFileBytes,
    maxImageBytes: config.catalogue.maxImageBytes,
    csv: {
      csvDelimiter: config.catalogue.csv.delimiter,
      decimalMark: config.catalogue.csv.decimalMark,
      priceUnit: config.catalogue.priceUnit,
      ignoreColumns: config.catalogue.ignoreColumns,
    },
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
    fenceSends: (fence) => queue.fence(fence),
    ...(group ? { readGroup: group.readGroup } : {}),
  };
  return {
    config,
    logger,
    store,
    queue,
    client,
    catalogue,
    reconcileDeps,
    sales: salesLedger(config.state.url !== '', config.state.path, store),
    notifier,
    notices,
    async close() {
      await client.close();
      await saveQueueEnd(store, config.rateLimit, start, queue.stats(), Date.now());
      saveWindow();
      await windowSaved;
      await store.close();
    },
  };
}
