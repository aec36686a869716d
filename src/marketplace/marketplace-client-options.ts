// Options of the undici client: each documented once with its default, defaults merged and checked in one
// place, bad values refused at construction with the option's name and what was expected.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import { type CapabilityMemory, inMemoryCapabilities } from '../capabilities/memory.ts';
import type { CredentialsSeal, LoginFingerprint, RequestScheduler } from './marketplace-client.ts';
import { defaultUserAgent, userAgentRefusal } from './user-agent.ts';

export interface ListParamOptions {
  /** Query parameter of the sort order. Default `sort`. */
  readonly sortParam?: string;
  /** Query parameter of the page size. Default `per_page`. */
  readonly perPageParam?: string;
  /** Query parameter of the page number. Default `page`. */
  readonly pageParam?: string;
  /** Query parameter filtering a list by external_id; '' never filters (always scan). Default `filter[external_id]`. */
  readonly filterParam?: string;
  /** Page size when a call does not give one. Default 100. */
  readonly perPage?: number;
  /** Last guard against a list that never ends. Default 10000 pages. */
  readonly maxPages?: number;
}

export interface MarketplaceClientOptions {
  /** The service base address ({base_url}); https, or http on loopback, or http with `insecure`. */
  readonly baseUrl: string;
  /** Bearer key. Never logged, never in an error. */
  readonly apiKey: string;
  /** Allow http:// to a host that is not loopback. Default false. */
  readonly insecure?: boolean;
  /** Whole-request deadline, headers and body included; also undici's headers timeout. Default 30000 ms. */
  readonly timeoutMs?: number;
  /** An answer whose body sends no byte for this long is given up (undici's body timeout). Default 10000 ms. */
  readonly idleTimeoutMs?: number;
  /** Largest answer body read, by the size of answer a route gives: more is an error. */
  readonly maxBodyBytes?: {
    /** List pages and bulk answers. Default 16 MiB. */
    readonly list?: number;
    /** Every other answer: one offer, one image, an error. Default 1 MiB. */
    readonly single?: number;
  };
  /** Keep-alive connections in the pool. Default 8. */
  readonly connections?: number;
  /**
   * Default `offersync/<version from package.json>`. Never empty and never a library's (curl/, axios/, ...): the
   * marketplace answers those 429 or a few a minute, and its 429 bans the address (user-agent.ts); refused here.
   */
  readonly userAgent?: string;
  /** Every request goes through it (the request queue). Default: send at once, no retry. */
  readonly schedule?: RequestScheduler;
  readonly list?: ListParamOptions;
  /** Path prefix of every endpoint. Default `/api/v1`. */
  readonly apiPrefix?: string;
  /**
   * Seconds a bare rate limit counts over (`X-RateLimit-Limit: 50` states no window; an IETF
   * `RateLimit-Policy` does and wins). Default 1.
   */
  readonly limitWindowSec?: number;
  /** Verdicts on lookup routes (GET /{kind}/{external_id}, the list filter). Default: kept in memory. */
  readonly capabilities?: CapabilityMemory;
  /** Default: silent. */
  readonly logger?: Logger;
  /** Told of every attempt's answer (status null: no answer, e.g. a timeout), for metrics. */
  readonly onResponse?: (r: ResponseObserved) => void;
  /**
   * Seals the credentials a server returns with an account into an HMAC, so that an adoption can tell them
   * unchanged without holding them. Default: none (returned credentials are dropped unseen).
   */
  readonly sealCredentials?: CredentialsSeal;
  /**
   * Gives the login fingerprint of the credentials a server returns with an account, so that an account listed
   * twice (once by hand on the website) is known without holding its login. Default: none.
   */
  readonly fingerprintLogin?: LoginFingerprint;
}

/** How large a route's answer may be: a list page (or a bulk answer, one result per offer) or one object. */
export type AnswerSize = 'list' | 'single';

/** The configuration key of each cap, for the error that tells a person how to raise it. */
export const BODY_CAP_SETTINGS: Readonly<Record<AnswerSize, string>> = {
  list: 'http.maxBodyBytes.list',
  single: 'http.maxBodyBytes.single',
};

/** One attempt as metrics see it. */
export interface ResponseObserved {
  readonly method: string;
  /** The full path as sent, without the query. */
  readonly path: string;
  readonly status: number | null;
  readonly seconds: number;
}

export interface ResolvedOptions {
  /** scheme://host:port */
  readonly origin: string;
  /** Path of the base URL without a trailing slash, then the API prefix: `/api/v1` or `/shop/api/v1`. */
  readonly prefix: string;
  readonly apiKey: string;
  readonly timeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly maxBodyBytes: Readonly<Record<AnswerSize, number>>;
  readonly connections: number;
  readonly userAgent: string;
  readonly schedule: RequestScheduler;
  readonly list: Required<ListParamOptions>;
  readonly limitWindowSec: number;
  readonly capabilities: CapabilityMemory;
  readonly logger: Logger;
  readonly onResponse: ((r: ResponseObserved) => void) | undefined;
  readonly sealCredentials: CredentialsSeal | undefined;
  readonly fingerprintLogin: LoginFingerprint | undefined;
}

export class MarketplaceClientOptionsError extends Error {
  constructor(option: string, expected: string, received: string) {
    super(`marketplace client option ${option}: expected ${expected}, received ${received}`);
    this.name = 'MarketplaceClientOptionsError';
  }
}

function checkedUserAgent(userAgent: string): string {
  const refusal = userAgentRefusal(userAgent);
  if (refusal) throw new MarketplaceClientOptionsError('userAgent', refusal, JSON.stringify(userAgent));
  return userAgent;
}

const sendNow: RequestScheduler = (_meta, send) => send();

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** 127.0.0.0/8, ::1 and localhost: where plain http cannot be read by anyone else. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(host);
  return false;
}

function positiveInt(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new MarketplaceClientOptionsError(option, 'a positive integer', String(value));
  return value;
}

function positiveNumber(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new MarketplaceClientOptionsError(option, 'a number > 0', String(value));
  return value;
}

function param(option: string, value: string | undefined, fallback: string, allowEmpty = false): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || (!allowEmpty && value.trim() === '')) {
    throw new MarketplaceClientOptionsError(option, 'a query parameter name', JSON.stringify(value));
  }
  return value;
}

export function resolveOptions(opts: MarketplaceClientOptions): ResolvedOptions {
  if (typeof opts.apiKey !== 'string' || opts.apiKey.trim() === '') {
    throw new MarketplaceClientOptionsError(
      'apiKey',
      'a non-empty API key',
      opts.apiKey === '' ? 'an empty string' : typeof opts.apiKey,
    );
  }
  if (/[\r\n]/.test(opts.apiKey))
    throw new MarketplaceClientOptionsError('apiKey', 'a key on one line', 'a key with a line break');
  let url: URL;
  try {
    url = new URL(opts.baseUrl);
  } catch {
    throw new MarketplaceClientOptionsError(
      'baseUrl',
      'an absolute http(s) URL such as https://market.example',
      JSON.stringify(opts.baseUrl),
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new MarketplaceClientOptionsError('baseUrl', 'an http(s) URL', url.protocol);
  }
  if (url.protocol === 'http:' && !opts.insecure && !isLoopbackHost(url.hostname)) {
    throw new MarketplaceClientOptionsError(
      'baseUrl',
      'https:// (or http:// only on loopback, or with insecure: true)',
      url.origin,
    );
  }
  if (url.username || url.password)
    throw new MarketplaceClientOptionsError('baseUrl', 'a URL without user:password', 'credentials in the URL');
  const apiPrefix = param('apiPrefix', opts.apiPrefix, '/api/v1', true).replace(/\/+$/, '');
  if (apiPrefix !== '' && !apiPrefix.startsWith('/'))
    throw new MarketplaceClientOptionsError('apiPrefix', 'a path starting with /', apiPrefix);
  const list = opts.list ?? {};
  return Object.freeze({
    origin: url.origin,
    prefix: url.pathname.replace(/\/+$/, '') + apiPrefix,
    apiKey: opts.apiKey,
    timeoutMs: positiveInt('timeoutMs', opts.timeoutMs, 30_000),
    idleTimeoutMs: positiveInt('idleTimeoutMs', opts.idleTimeoutMs, 10_000),
    maxBodyBytes: Object.freeze({
      list: positiveInt('maxBodyBytes.list', opts.maxBodyBytes?.list, 16 * 1024 * 1024),
      single: positiveInt('maxBodyBytes.single', opts.maxBodyBytes?.single, 1024 * 1024),
    }),
    connections: positiveInt('connections', opts.connections, 8),
    userAgent: checkedUserAgent(opts.userAgent ?? defaultUserAgent(packageVersion())),
    schedule: opts.schedule ?? sendNow,
    list: Object.freeze({
      sortParam: param('list.sortParam', list.sortParam, 'sort'),
      perPageParam: param('list.perPageParam', list.perPageParam, 'per_page'),
      pageParam: param('list.pageParam', list.pageParam, 'page'),
      filterParam: param('list.filterParam', list.filterParam, 'filter[external_id]', true),
      perPage: positiveInt('list.perPage', list.perPage, 100),
      maxPages: positiveInt('list.maxPages', list.maxPages, 10_000),
    }),
    limitWindowSec: positiveNumber('limitWindowSec', opts.limitWindowSec, 1),
    capabilities: opts.capabilities ?? inMemoryCapabilities(),
    logger: opts.logger ?? silentLogger,
    onResponse: opts.onResponse,
    sealCredentials: opts.sealCredentials,
    fingerprintLogin: opts.fingerprintLogin,
  });
}
