// Contract: what the client makes of the sandbox's injected faults, disabled routes and limits.
import { describe, expect, it } from 'vitest';
import {
  MethodNotAllowedError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  ServerError,
  TimeoutError,
} from '../../src/marketplace/marketplace-errors.ts';
import { createMarketplaceClient } from '../../src/marketplace/undici-marketplace-client.ts';
import { ext, SANDBOX_KEY, useContract } from './support/contract.ts';
import { accountBody, topUpBody } from '../support/offers.ts';

const { sandbox, client } = useContract({ maxJsonBytes: 4096 });

describe('faults', () => {
  it('a 5xx on a create: retryable, outcome unknown', async () => {
    sandbox.setFaults({ errorRate: 1 });
    const err = await client.accounts.create(accountBody(ext('acc'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ retryable: true, outcomeUnknown: true });
  });

  it('a lost answer after the write: outcome unknown, and the offer is there', async () => {
    sandbox.setFaults({ lostResponseRate: 1 });
    const e = ext('acc');
    const err = await client.accounts.create(accountBody(e)).catch((x: unknown) => x);
    expect(err).toMatchObject({ outcomeUnknown: true, retryable: true });
    sandbox.setFaults({});
    await expect(client.accounts.findByExternalId(e)).resolves.toMatchObject({ externalId: e });
  });

  it('a dropped connection is a NetworkError', async () => {
    sandbox.setFaults({ dropRate: 1 });
    await expect(client.accounts.get({ id: 1 })).rejects.toBeInstanceOf(NetworkError);
  });

  it('latency beyond the deadline is a TimeoutError', async () => {
    const impatient = createMarketplaceClient({ baseUrl: sandbox.url, apiKey: SANDBOX_KEY, timeoutMs: 100 });
    sandbox.setFaults({ latencyMs: 400 });
    try {
      await expect(impatient.items.get({ id: 1 })).rejects.toBeInstanceOf(TimeoutError);
    } finally {
      await impatient.close();
    }
  });
});

describe('routes a marketplace may not serve (docs/architecture.md, Capabilities)', () => {
  it('PATCH /accounts/{id} disabled: 405', async () => {
    const created = await client.accounts.create(accountBody(ext('acc')));
    sandbox.setFaults({ disabled: ['accounts.update'] });
    await expect(client.accounts.update({ id: created.id }, { price: 1 })).rejects.toBeInstanceOf(
      MethodNotAllowedError,
    );
  });

  it('bulk-remove disabled: 404', async () => {
    sandbox.setFaults({ disabled: ['accounts.bulkRemove'] });
    await expect(client.accounts.bulkRemove({ ids: [1] })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('bulk-update disabled: 404', async () => {
    const t = await client.topUps.create(topUpBody(ext('tu')));
    sandbox.setFaults({ disabled: ['topUps.bulkUpdate'] });
    await expect(client.topUps.bulkUpdate([{ id: t.id, external_id: t.externalId, price: 1 }])).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe('limits and lifecycle', () => {
  it('an oversize body: 413', async () => {
    await expect(
      client.accounts.create(accountBody(ext('acc'), { description: 'x'.repeat(10_000) })),
    ).rejects.toBeInstanceOf(PayloadTooLargeError);
  });

  it('a sale made on the marketplace reads as status sold with sold_at', async () => {
    const created = await client.accounts.create(accountBody(ext('acc')));
    sandbox.setStatus('accounts', created.id, 'sold');
    const sold = await client.accounts.get({ id: created.id });
    expect(sold.status).toBe('sold');
    expect(typeof sold.soldAt).toBe('number');
  });
});
