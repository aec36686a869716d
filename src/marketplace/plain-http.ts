// Plain http to a host that is not this machine carries the bearer key in clear to anyone on the network path:
// refused unless `insecure`, and with it, warned about at every start. Loopback never leaves the machine.
import { isLoopbackHost } from './marketplace-client-options.ts';

export type PlainHttpVerdict =
  | { readonly kind: 'safe' }
  /** Without `insecure`: nothing may start. */
  | { readonly kind: 'refused'; readonly message: string }
  /** With `insecure`: it runs, and says so wherever a person looks. */
  | { readonly kind: 'warned'; readonly message: string };

export function plainHttpVerdict(baseUrl: string, insecure: boolean): PlainHttpVerdict {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { kind: 'safe' }; // not a URL: the client refuses it with its own message
  }
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return { kind: 'safe' };
  if (!insecure)
    return {
      kind: 'refused',
      message:
        `baseUrl ${baseUrl} is plain http to another machine: the API key would cross the network in clear. ` +
        "Use the marketplace's https:// address; only for a test marketplace on a network you trust, set " +
        'insecure: true (flag --insecure, or OFFERSYNC_INSECURE=true)',
    };
  return {
    kind: 'warned',
    message:
      `insecure: the API key is sent in clear (plain http) to ${url.host}, another machine: anyone on the ` +
      "network path can read it. Use the marketplace's https:// address; keep insecure for test marketplaces",
  };
}
