// The MarketplaceClient over undici: one keep-alive pool, every request through the scheduler hook.
import { registerSecret } from '../log/scrubber.ts';
import { HttpAccountResource } from './accounts.ts';
import { HttpTransport } from './http.ts';
import { createImageResource } from './images.ts';
import { createItemResource } from './items.ts';
import type { MarketplaceClient } from './marketplace-client.ts';
import { type MarketplaceClientOptions, resolveOptions } from './marketplace-client-options.ts';
import type { ResourceContext } from './resource-context.ts';
import { HttpTopUpResource } from './top-ups.ts';

export function createMarketplaceClient(opts: MarketplaceClientOptions): MarketplaceClient {
  const resolved = resolveOptions(opts);
  registerSecret(resolved.apiKey);
  const logger = resolved.logger.child({ component: 'marketplace' });
  const transport = new HttpTransport(resolved, logger);
  const decode = {
    ...(resolved.sealCredentials ? { sealCredentials: resolved.sealCredentials } : {}),
    ...(resolved.fingerprintLogin ? { fingerprintLogin: resolved.fingerprintLogin } : {}),
  };
  const ctx: ResourceContext = { transport, list: resolved.list, capabilities: resolved.capabilities, logger, decode };
  return Object.freeze({
    accounts: new HttpAccountResource(ctx),
    items: createItemResource(ctx),
    topUps: new HttpTopUpResource(ctx),
    images: createImageResource(ctx),
    close: () => transport.close(),
  });
}
