// The configuration schema: one zod object, defaults in config/default.yaml, frozen once loaded.
import cron from 'node-cron';
import { z } from 'zod';

export const PRUNE_MODES = ['managed', 'all', 'none'] as const;
export const DRIFT_POLICIES = ['local-wins', 'report'] as const;
export const UPDATE_FALLBACKS = ['report', 'recreate'] as const;
// The catalogue's own names (catalogue/csv-rows.ts, catalogue/price.ts), repeated: config imports no layer.
export const CSV_DELIMITER_SETTINGS = ['auto', 'comma', 'semicolon', 'tab'] as const;
export const DECIMAL_MARK_SETTINGS = ['auto', 'point', 'comma'] as const;
export const PRICE_UNIT_SETTINGS = ['auto', 'cents', 'major'] as const;
// The daemon's notification events (notify/notification.ts), repeated: config imports no layer.
export const NOTIFY_EVENT_NAMES = ['sold', 'failed', 'backoff', 'guard', 'unreadable', 'sold-account-live'] as const;
type NotifyEventSwitches = Record<(typeof NOTIFY_EVENT_NAMES)[number], z.ZodBoolean>;
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const positiveInt = z.number().int().positive();
const cronExpression = z
  .string()
  .refine((s) => cron.validate(s), { message: 'expected a cron expression such as "*/5 * * * *"' });

/** Keys a seller in `sellers:` may set for itself; the rest of the configuration is shared. */
/**
 * Who shares the marketplace's window (rateLimit.sharedBy): every seller reaching it from this address, as a
 * site that counts per client address does, or each API key on its own.
 */
export const RATE_LIMIT_SHARED_BY = ['address', 'key'] as const;
export type RateLimitSharedBy = (typeof RATE_LIMIT_SHARED_BY)[number];

export const SELLER_OVERRIDES = ['baseUrl', 'rateLimit', 'sync', 'guard', 'accounts', 'defaults'] as const;

export const SellerSpecSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/, { message: 'expected lowercase letters, digits and -' }),
    catalogue: z.string().min(1),
    // Sellers of one group (one owner's shops) never list one game account twice between them.
    group: z
      .string()
      .regex(/^[a-z0-9-]+$/, { message: 'expected lowercase letters, digits and -' })
      .optional(),
    apiKeyFile: z.string().min(1).optional(),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'expected an environment variable name' })
      .optional(),
    // Checked in full once merged over the shared configuration (load-config.ts).
    baseUrl: z.unknown().optional(),
    rateLimit: z.unknown().optional(),
    sync: z.unknown().optional(),
    guard: z.unknown().optional(),
    accounts: z.unknown().optional(),
    defaults: z.unknown().optional(),
  })
  .strict();

/**
 * How a configuration is parsed: without zod's compiled fast path. zod writes and compiles code for an object
 * schema at its first parse, which pays off over many parses; a configuration is parsed once or twice a run, and
 * the compiling cost a one-offer reconcile about 45 ms of CPU.
 */
export const PARSE_ONCE = { jitless: true } as const;

export const ConfigSchema = z
  .object({
    baseUrl: z.url({ protocol: /^https?$/ }),
    insecure: z.boolean(),
    catalogue: z
      .object({
        dir: z.string().min(1),
        maxFileBytes: positiveInt,
        maxImageBytes: positiveInt,
        csv: z
          .object({
            delimiter: z.enum(CSV_DELIMITER_SETTINGS),
            decimalMark: z.enum(DECIMAL_MARK_SETTINGS),
          })
          .strict(),
        // CSV and spreadsheet price columns whose header states no unit: auto (an integer is cents, a fraction major
        // units; a column mixing both is an error), cents or major (whole numbers are whole euros: 89 is 89.00); or one
        // per folder: {accounts: major, items: auto}.
        priceUnit: z.union([
          z.enum(PRICE_UNIT_SETTINGS),
          z
            .object({
              accounts: z.enum(PRICE_UNIT_SETTINGS),
              items: z.enum(PRICE_UNIT_SETTINGS),
              'top-ups': z.enum(PRICE_UNIT_SETTINGS),
            })
            .partial()
            .strict(),
        ]),
        // Headers of the seller's own columns in CSV and spreadsheet files ('Bought for'), passed over without a word.
        ignoreColumns: z.array(z.string().min(1)),
      })
      .strict(),
    state: z
      .object({
        path: z.string().min(1),
        leaseTtlMs: z.number().int().min(1000),
        keepRuns: positiveInt,
        url: z.string().refine((s) => s === '' || /^postgres(ql)?:\/\/[^\s]+$/.test(s), {
          message: 'expected empty (sqlite) or a URL such as postgres://offersync@db:5432/offersync',
        }),
      })
      .strict(),
    http: z
      .object({
        timeoutMs: positiveInt,
        idleTimeoutMs: positiveInt,
        maxBodyBytes: z.object({ list: positiveInt, single: positiveInt }).strict(),
        connections: positiveInt,
      })
      .strict(),
    rateLimit: z
      .object({
        ratePerSec: z.union([z.literal('auto'), z.number().positive()], {
          message: "expected 'auto' or a number of requests per second > 0",
        }),
        startPerSec: z.number().positive(),
        limitWindowSec: z.number().positive(),
        burst: positiveInt,
        concurrency: positiveInt,
        maxAttempts: positiveInt,
        maxRetryAfterSeconds: z.number().positive(),
        window: z.object({ requests: z.number().int().positive(), seconds: z.number().positive() }).strict().nullable(),
        learnWindowSeconds: z.number().positive(),
        sharedBy: z.enum(RATE_LIMIT_SHARED_BY),
      })
      .strict(),
    lists: z
      .object({
        sortParam: z.string().min(1),
        perPageParam: z.string().min(1),
        pageParam: z.string().min(1),
        filterParam: z.string(),
        perPage: positiveInt,
      })
      .strict(),
    bulk: z.object({ removeSize: positiveInt, topUpUpdateSize: positiveInt, itemUpdateSize: positiveInt }).strict(),
    defaults: z.object({ status: z.string().min(1) }).strict(),
    sync: z
      .object({
        prune: z.enum(PRUNE_MODES),
        ownedPattern: z.string().refine(
          (s) => {
            try {
              new RegExp(s);
              return true;
            } catch {
              return false;
            }
          },
          { message: 'expected a valid regular expression' },
        ),
        drift: z.enum(DRIFT_POLICIES),
      })
      .strict(),
    accounts: z.object({ updateFallback: z.enum(UPDATE_FALLBACKS) }).strict(),
    capabilities: z.object({ reprobeAfterHours: z.number().positive() }).strict(),
    offerBackoff: z
      .object({ initialSeconds: z.number().positive(), maxHours: z.number().positive(), parkAfter: positiveInt })
      .strict(),
    guard: z
      .object({
        maxArchive: positiveInt.nullable(),
        maxArchivePercent: z.number().min(0).max(100),
        maxArchiveMin: z.number().int().min(0),
        maxPriceChangePercent: z.number().min(0).max(100),
        maxPriceChangeMin: z.number().int().min(0),
      })
      .strict(),
    schedule: z.object({ fullSweep: cronExpression, tick: cronExpression }).strict(),
    daemon: z
      .object({
        debounceMs: z.number().int().min(0),
        healthHost: z.string().min(1),
        healthPort: z.number().int().min(0).max(65535),
        allowedHosts: z.array(
          z.string().regex(/^[^\s/?#@]+$/, { message: 'expected a host name or address, without scheme or path' }),
        ),
      })
      .strict(),
    log: z.object({ level: z.enum(LOG_LEVELS), format: z.enum(LOG_FORMATS) }).strict(),
    notify: z
      .object({
        seller: z.string(),
        webhooks: z.array(
          z.union([
            z.url({ protocol: /^https?$/ }),
            z.object({ url: z.url({ protocol: /^https?$/ }), events: z.array(z.enum(NOTIFY_EVENT_NAMES)) }).strict(),
          ]),
        ),
        events: z
          .object(Object.fromEntries(NOTIFY_EVENT_NAMES.map((e) => [e, z.boolean()])) as NotifyEventSwitches)
          .strict(),
        maxAttempts: positiveInt,
        timeoutMs: positiveInt,
      })
      .strict(),
    sellers: z.array(SellerSpecSchema).refine((l) => new Set(l.map((s) => s.id)).size === l.length, {
      message: 'seller ids must be unique',
    }),
  })
  .strict();

type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** The loaded configuration, frozen, with paths absolute, plus the API key (never from a file). */
export type Config = DeepReadonly<z.infer<typeof ConfigSchema>> & {
  /** Where the config came from, for messages. */
  readonly sources: readonly string[];
  /** Empty when neither OFFERSYNC_API_KEY nor OFFERSYNC_API_KEY_FILE is set. Never print it. */
  readonly apiKey: string;
  /** PGPASSWORD: the state database's password when state.url has none; empty when unset. Never print it. */
  readonly statePassword: string;
  /** This configuration's seller: 'default' without a `sellers:` list. Its name in state, logs and metrics. */
  readonly seller: string;
  /** One configuration per entry of `sellers:` (empty without the list): see sellersOf. */
  readonly sellerConfigs: readonly Config[];
  /** The folder the config file's relative paths are read from (its own folder, else the working directory). */
  readonly baseDir: string;
  /** The seller's group (`sellers[].group`): absent for a seller on its own. */
  readonly group?: SellerGroup;
};

/** Sellers of one owner: one game account is listed by one of them at most, and once sold by none again. */
export interface SellerGroup {
  readonly name: string;
  /** Every seller of the group, this one included, with its own sqlite state file (unused with PostgreSQL). */
  readonly sellers: readonly { readonly id: string; readonly statePath: string }[];
  /**
   * sqlite: the file of the group's fingerprint key, beside the shared state.path, so that every seller of the
   * group fingerprints a login alike. null with PostgreSQL: the key is kept in the state db the fleet shares.
   */
  readonly keyPath: string | null;
}

/** A seller as `sellers:` lists it. */
export type SellerSpecInput = z.infer<typeof SellerSpecSchema>;

/** The sellers a configuration serves: those of `sellers:`, or itself as the seller 'default'. */
export function sellersOf(config: Config): readonly Config[] {
  return config.sellerConfigs.length > 0 ? config.sellerConfigs : [config];
}
