// Contract: the API key appears in no error message and no log line (docs/architecture.md, Secrets).
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { createMarketplaceClient } from '../../src/marketplace/undici-marketplace-client.ts';
import { collect, ext, sandboxAndClient, SANDBOX_KEY } from './support/contract.ts';
import { accountBody } from '../support/offers.ts';

describe('the API key', () => {
  it('is in no error and no log line', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'trace', destination: { write: (l: string) => void lines.push(l) } });
    const { sandbox, client, close } = await sandboxAndClient({}, { logger });
    const wrongKey = 'wrong-but-secret-key-31337';
    const wrong = createMarketplaceClient({ baseUrl: sandbox.url, apiKey: wrongKey, logger });
    const errors: unknown[] = [];
    const keep = (p: Promise<unknown>) => p.catch((e: unknown) => void errors.push(e));
    try {
      const e = ext('acc');
      await client.accounts.create(accountBody(e));
      await keep(client.accounts.create(accountBody(e))); // 409
      await keep(client.accounts.create({ external_id: ext('acc') })); // 422
      await keep(client.accounts.get({ id: 987654321 })); // 404
      await keep(wrong.accounts.get({ id: 1 })); // 401
      await keep(collect(wrong.items.list()));
      await keep(wrong.topUps.findByExternalId('abc'));
      sandbox.setFaults({ errorRate: 1 });
      await keep(client.accounts.update({ id: 1 }, { price: 1 })); // 5xx
      sandbox.setFaults({});
      expect(errors.length).toBe(7);
      for (const err of errors) {
        const text = `${(err as Error).message}\n${(err as Error).stack}\n${JSON.stringify(err)}`;
        expect(text).not.toContain(SANDBOX_KEY);
        expect(text).not.toContain(wrongKey);
      }
      logger.error({ err: errors[3], errors }, 'errors as a caller would log them');
      expect(lines.length).toBeGreaterThan(5);
      const log = lines.join('');
      expect(log).not.toContain(SANDBOX_KEY);
      expect(log).not.toContain(wrongKey);
    } finally {
      await wrong.close();
      await close();
    }
  });
});
