// The Host names the daemon's HTTP server answers for. A web page on the seller's network can point a name of its
// own at this machine (DNS rebinding) and then read `/` and `/metrics` as if they were its own; the browser still
// sends that name as Host, so answering only known names closes the door. Known: loopback names and addresses,
// the address the server is bound to unless it is a wildcard, and what daemon.allowedHosts adds (a proxy's
// name, a Kubernetes pod IP).
import { isIP } from 'node:net';
import { isLoopbackHost } from '../marketplace/marketplace-client-options.ts';

/** Bind addresses that mean "every interface": no name of its own to answer for. */
const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]', '::0']);

/** A Host header's or a configured entry's name: lowercase, no port, no brackets, no trailing dot. */
export function hostName(value: string): string {
  let v = value.trim().toLowerCase();
  if (v.startsWith('[')) v = v.slice(1, v.indexOf(']') > 0 ? v.indexOf(']') : undefined);
  else if (isIP(v) !== 6) v = v.replace(/:\d*$/, '');
  return v.replace(/\.$/, '');
}

export class HostAllowList {
  readonly #names: ReadonlySet<string>;

  /** `bound`: the address the server listens on; `extra`: daemon.allowedHosts. */
  constructor(bound: string, extra: readonly string[]) {
    const names = new Set(extra.map(hostName).filter((n) => n !== ''));
    if (!WILDCARDS.has(bound.trim())) names.add(hostName(bound));
    this.#names = names;
  }

  /** Whether a request with this Host header is answered; a request without one is not. */
  allows(hostHeader: string | undefined): boolean {
    if (hostHeader === undefined || hostHeader.trim() === '') return false;
    const name = hostName(hostHeader);
    return isLoopbackHost(name) || this.#names.has(name);
  }
}
