// Contract: gallery images (multipart upload with part `file`, list, delete) against the sandbox.
import { describe, expect, it } from 'vitest';
import { NotFoundError, UnauthenticatedError } from '../../src/marketplace/marketplace-errors.ts';
import { createMarketplaceClient } from '../../src/marketplace/undici-marketplace-client.ts';
import { ext, PNG, useContract } from './support/contract.ts';
import { accountBody } from '../support/offers.ts';

const { sandbox, client } = useContract();

describe('images', () => {
  it('upload answers 201 with the image, list shows it, delete removes it', async () => {
    const img = await client.images.upload({ data: PNG, filename: 'pixel.png', mimeType: 'image/png' });
    expect(Number.isSafeInteger(img.id)).toBe(true);
    expect(img.url).toBeTruthy();
    expect(img.mimeType).toBe('image/png');
    expect(sandbox.counters().byRoute['POST /api/v1/images']).toEqual({ 201: 1 });

    const listed = await client.images.list();
    expect(listed.find((i) => i.id === img.id)).toMatchObject({ id: img.id, originalName: 'pixel.png' });
    expect(listed.find((i) => i.id === img.id)?.sizeBytes).toBe(PNG.length);

    await expect(client.images.delete(img.id)).resolves.toEqual({ success: true, deletedId: img.id });
    expect((await client.images.list()).map((i) => i.id)).not.toContain(img.id);
  });

  it('an uploaded image attaches to an account through image_ids', async () => {
    const img = await client.images.upload({ data: PNG, filename: 'a.png', mimeType: 'image/png' });
    const created = await client.accounts.create(accountBody(ext('acc'), { image_ids: [img.id] }));
    expect(created.fields.image_ids).toEqual([img.id]);
  });

  it('delete of an unknown image is a 404', async () => {
    await expect(client.images.delete(987654321)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('401 with a wrong key', async () => {
    const wrong = createMarketplaceClient({ baseUrl: sandbox.url, apiKey: 'wrong-key-789' });
    try {
      await expect(wrong.images.list()).rejects.toBeInstanceOf(UnauthenticatedError);
      await expect(wrong.images.upload({ data: PNG, filename: 'a.png', mimeType: 'image/png' })).rejects.toBeInstanceOf(
        UnauthenticatedError,
      );
    } finally {
      await wrong.close();
    }
  });
});
