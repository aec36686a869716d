// What every resource module needs: the transport, the list parameters, a logger.
import type { Logger } from '../log/logger.ts';
import type { CapabilityMemory } from '../capabilities/memory.ts';
import type { HttpTransport } from './http.ts';
import type { CallOptions } from './marketplace-client.ts';
import type { ListParamOptions } from './marketplace-client-options.ts';
import type { DecodeOptions } from './decode.ts';

export interface ResourceContext {
  readonly transport: HttpTransport;
  readonly list: Required<ListParamOptions>;
  readonly capabilities: CapabilityMemory;
  readonly logger: Logger;
  /** How answers are decoded beyond the document (credentials sealed); default: credentials dropped unseen. */
  readonly decode?: DecodeOptions;
}

/** CallOptions without undefined members (the transport spreads them into its meta). */
export function callOf(opts: CallOptions | undefined): { readonly call?: CallOptions } {
  return opts ? { call: opts } : {};
}
