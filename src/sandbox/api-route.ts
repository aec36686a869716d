// What a route handler gets and gives. Handlers are synchronous over the store once the body is read,
// so one request's write is never interleaved with another's.
import type { PageLimits } from './paging.ts';
import type { DisableableRoute, SandboxBulk, SandboxRepresentation } from './sandbox-options.ts';
import type { SandboxStore } from './store.ts';

export interface ApiContext {
  readonly store: SandboxStore;
  readonly representation: SandboxRepresentation;
  readonly bulk: SandboxBulk;
  readonly limits: PageLimits & { readonly maxUploadBytes: number };
  isDisabled(name: DisableableRoute): boolean;
  /** faults.errorInfoBodies: an update the database would refuse fails as PDO's uncaught error. */
  readonly errorInfoBodies?: boolean;
}

export interface ApiRequest {
  /** Path parameters by name ({identifier}, {id}), decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The absolute URL as the client asked for it (links are built from it). */
  readonly url: URL;
  /** The parsed JSON object of a 'json' route. */
  readonly body: Record<string, unknown>;
  /** The raw body and its content type, for the 'multipart' route. */
  readonly raw: Buffer;
  readonly contentType: string;
}

export interface ApiResult {
  readonly status: number;
  readonly body: unknown;
  /** True when the request changed the store (counted as a write, persisted, can be a lost response). */
  readonly wrote: boolean;
  /** Sent as text/html instead of the JSON body (a web page where the API was expected). */
  readonly html?: string;
}

export interface RouteDef {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path template as counted, e.g. /api/v1/accounts/{identifier}. */
  readonly path: string;
  readonly body: 'none' | 'json' | 'multipart';
  /** When this name is disabled by the faults, the route answers 404 (405 for accounts.update). */
  readonly disabledAs?: DisableableRoute;
  handle(ctx: ApiContext, req: ApiRequest): ApiResult | Promise<ApiResult>;
}

export const ok = (body: unknown, status = 200): ApiResult => ({ status, body, wrote: false });
export const wrote = (body: unknown, status = 200): ApiResult => ({ status, body, wrote: true });
