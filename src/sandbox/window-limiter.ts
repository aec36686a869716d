// The site's own limiter in front of the marketplace's API (as the marketplace's real server does): per client
// address, a fixed window aligned to the wall clock, then 429 and a ban of the address. Time is passed in,
// so the windows and bans can be tested without waiting.
import type { WindowRateLimit } from './sandbox-options.ts';

/** What a client library sends as its User-Agent unless told otherwise: the site keeps these to a trickle. */
export const LIBRARY_USER_AGENTS = [
  'curl/',
  'python-requests',
  'node-fetch',
  'axios/',
  'got/',
  'undici',
  'okhttp',
  'java/',
] as const;

/** Requests per window an address gets under a library's User-Agent. */
export const LIBRARY_USER_AGENT_REQUESTS = 5;

export interface SiteRequest {
  readonly address: string;
  /** '' when the request sent none. */
  readonly userAgent: string;
  readonly accept: string;
}

/** Refused: the 429 the site answers, its body by what the request accepts. */
export interface SiteRefusal {
  readonly retryAfterSec: number;
  readonly why: 'banned' | 'over-window' | 'empty-user-agent' | 'library-user-agent';
  /** JSON when Accept has JSON and not HTML; else an HTML page. */
  readonly json: boolean;
}

interface AddressWindow {
  start: number;
  requests: number;
  libraryRequests: number;
  bannedUntil: number;
}

export function isLibraryUserAgent(userAgent: string): boolean {
  const ua = userAgent.toLowerCase();
  return LIBRARY_USER_AGENTS.some((name) => ua.includes(name));
}

export class WindowLimiter {
  readonly #addresses = new Map<string, AddressWindow>();

  constructor(readonly limit: WindowRateLimit) {}

  /** undefined: the request passes (and is counted); else the refusal. */
  admit(req: SiteRequest, nowMs: number): SiteRefusal | undefined {
    const { requests, seconds, banSeconds } = this.limit.window;
    const json = /json/i.test(req.accept) && !/html/i.test(req.accept);
    const refuse = (why: SiteRefusal['why']): SiteRefusal => ({ retryAfterSec: Math.ceil(banSeconds), why, json });
    const windowMs = seconds * 1000;
    const start = Math.floor(nowMs / windowMs) * windowMs;
    const a = this.#addresses.get(req.address) ?? { start, requests: 0, libraryRequests: 0, bannedUntil: 0 };
    this.#addresses.set(req.address, a);
    // A request during the ban is refused and neither counted nor extends the ban.
    if (nowMs < a.bannedUntil) return refuse('banned');
    if (this.limit.userAgentRules && req.userAgent.trim() === '') return refuse('empty-user-agent');
    if (a.start !== start) Object.assign(a, { start, requests: 0, libraryRequests: 0 });
    const library = this.limit.userAgentRules === true && isLibraryUserAgent(req.userAgent);
    const over = a.requests >= requests || (library && a.libraryRequests >= LIBRARY_USER_AGENT_REQUESTS);
    if (over) {
      a.bannedUntil = nowMs + banSeconds * 1000;
      return refuse(library && a.requests < requests ? 'library-user-agent' : 'over-window');
    }
    a.requests++;
    if (library) a.libraryRequests++;
    return undefined;
  }
}

/** The body of a refusal as the site sends it: a toast for its own pages' scripts, or a page. */
export function refusalBody(r: SiteRefusal): { readonly contentType: string; readonly text: string } {
  if (r.json)
    return {
      contentType: 'application/json',
      text: JSON.stringify({
        sendToast: { type: 'error', title: 'Too many requests', message: 'Please slow down and try again later.' },
        blocked: true,
      }),
    };
  return {
    contentType: 'text/html; charset=utf-8',
    text:
      '<!DOCTYPE html><html><head><title>Too Many Requests</title></head><body><h1>429 Too Many Requests</h1>' +
      '<p>Please slow down and try again later.</p></body></html>',
  };
}
