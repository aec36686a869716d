// The hook the marketplace client sends every request through. Declared here structurally identical to
// RequestScheduler / RequestMeta in src/marketplace/marketplace-client.ts: queue and marketplace never
// import each other (docs/architecture.md, Layers), and TypeScript matches the two by shape.

export interface RequestMeta {
  readonly method: string;
  /** Path without query, identifiers as sent. */
  readonly path: string;
  /** false: a blind retry could duplicate something (offer creates). */
  readonly idempotent: boolean;
  /** Higher runs first; default 0. */
  readonly priority?: number;
}

export type RequestScheduler = <T>(meta: RequestMeta, send: () => Promise<T>) => Promise<T>;
