// The upload route: each new gallery image once per sha256, before the creates and updates that need it.
import { readFile } from 'node:fs/promises';
import { failure } from '../run-stopped.ts';
import { type ExecutionContext, PRIORITY } from './execution-context.ts';
import { EXECUTOR_WINDOW, forEachLimit } from '../for-each-limit.ts';
import type { UploadAction } from '../plan/plan-actions.ts';

export type ReadImage = (absPath: string) => Promise<Uint8Array>;

/** Uploads each image; returns the sha256 of those that failed (their offers are not sent). */
export async function uploadImages(
  ctx: ExecutionContext,
  uploads: readonly UploadAction[],
  read: ReadImage = (p) => readFile(p),
  signal?: AbortSignal,
): Promise<Set<string>> {
  const failed = new Set<string>();
  await forEachLimit(
    uploads,
    EXECUTOR_WINDOW,
    async (u) => {
      const key = u.image.path;
      try {
        if (await ctx.store.getImage(u.image.sha256))
          return ctx.report({ kind: 'image', externalId: key, outcome: 'unchanged' });
        const data = await read(u.image.absPath);
        const filename = u.image.path.split('/').pop() ?? 'image';
        const img = await ctx.journaled('upload', 'image', [u.image.sha256], () =>
          ctx.client.images.upload({ data, filename, mimeType: u.image.mimeType }, { priority: PRIORITY.upload }),
        );
        await ctx.store.putImage({
          sha256: u.image.sha256,
          remoteId: img.id,
          url: img.url ?? null,
          uploadedAt: Date.now(),
        });
        ctx.report({ kind: 'image', externalId: key, outcome: 'uploaded' });
      } catch (err) {
        failed.add(u.image.sha256);
        const needs = `; needed by ${u.neededBy.join(', ')}`;
        ctx.report({ kind: 'image', externalId: key, file: key, ...failure(err, 'upload failed: ', needs) });
      }
    },
    signal,
  );
  return failed;
}
