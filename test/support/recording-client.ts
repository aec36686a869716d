// The real client, recording each call as "resource.method" in order: route tests assert which requests a
// route sends against the sandbox, without mocking the marketplace.
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';

export interface RecordingClient {
  readonly client: MarketplaceClient;
  /** "accounts.update", "topUps.bulkUpdate", ... in call order. */
  readonly calls: string[];
}

/** How a call is noted; by default "resource.method". */
export type CallLabel = (resource: string, method: string, args: readonly unknown[]) => string;

export function recordingClient(
  inner: MarketplaceClient,
  label: CallLabel = (resource, method) => `${resource}.${method}`,
): RecordingClient {
  const calls: string[] = [];
  const wrap = <T extends object>(name: string, target: T): T =>
    new Proxy(target, {
      get(t, prop, receiver) {
        const v = Reflect.get(t, prop, receiver) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          calls.push(label(name, String(prop), args));
          return (v as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  return {
    calls,
    client: {
      accounts: wrap('accounts', inner.accounts),
      items: wrap('items', inner.items),
      topUps: wrap('topUps', inner.topUps),
      images: wrap('images', inner.images),
      close: () => inner.close(),
    },
  };
}
