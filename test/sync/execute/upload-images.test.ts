// The upload route's request: what the marketplace is sent for one gallery image. The upload route's outcomes and
// failures are in routes.test.ts and route-edges.test.ts.
import { expect, it } from 'vitest';
import { silentLogger } from '../../../src/log/logger.ts';
import type { MarketplaceClient } from '../../../src/marketplace/marketplace-client.ts';
import { RunContext } from '../../../src/sync/execute/run-context.ts';
import { uploadImages } from '../../../src/sync/execute/upload-images.ts';
import { ext, PNG } from '../../marketplace/support/contract.ts';
import { imageRef } from '../../support/offers.ts';
import { useSandboxRun } from '../support/sandbox-run.ts';

const { raw, store } = useSandboxRun();

it('sends each image under its own file name, with its media type', async () => {
  // A marketplace may read the extension of the name, not only the bytes.
  const sent: { filename: string; mimeType: string }[] = [];
  const images = raw.images;
  const client: MarketplaceClient = {
    accounts: raw.accounts,
    items: raw.items,
    topUps: raw.topUps,
    images: {
      upload: (file, opts) => {
        sent.push({ filename: file.filename, mimeType: file.mimeType });
        return images.upload(file, opts);
      },
      list: (opts) => images.list(opts),
      delete: (id, opts) => images.delete(id, opts),
    },
    close: () => raw.close(),
  };
  const ctx = new RunContext({ client, store, logger: silentLogger, runId: 'run-1', createAttempts: 1 });
  const image = imageRef('front', { path: 'accounts/gallery/front.png', sha256: ext('sha'), sizeBytes: PNG.length });
  await uploadImages(ctx, [{ type: 'upload', image, neededBy: ['a-1'] }], async () => PNG);
  expect(sent).toEqual([{ filename: 'front.png', mimeType: 'image/png' }]);
  expect(ctx.outcomes).toEqual([{ kind: 'image', externalId: 'accounts/gallery/front.png', outcome: 'uploaded' }]);
});
