// Gallery images (4.4): upload (201, wrapped in data), list (data + meta), delete. The bytes are kept in memory and
// served at the image's public url (sandbox-server.ts), without a key, as a marketplace's storage serves them.
import { createHash, randomBytes } from 'node:crypto';
import { ok, wrote, type ApiContext, type RouteDef } from './api-route.ts';
import { notFound } from './http-error.ts';
import { readUpload } from './multipart.ts';
import { paginate } from './paging.ts';
import type { ImageRecord } from './sandbox-records.ts';
import { action, integersAsStrings } from './represent.ts';
import { epochSeconds } from './sandbox-clock.ts';

function present(img: ImageRecord, base: string, full: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: img.id,
    image_id: img.id,
    url: `${base}/storage/gallery/${img.filename}`,
    filename: img.filename,
    mime_type: img.mime_type,
  };
  if (full)
    Object.assign(out, {
      original_name: img.original_name,
      size_bytes: img.size_bytes,
      created_at: epochSeconds(img.created_us),
    });
  return out;
}

const shape = (ctx: ApiContext, o: Record<string, unknown>) =>
  ctx.representation.integersAsStrings ? (integersAsStrings(o) as Record<string, unknown>) : o;

export const imageRoutes: readonly RouteDef[] = [
  {
    method: 'POST',
    path: '/api/v1/images',
    body: 'multipart',
    async handle(ctx, req) {
      const file = await readUpload(req.raw, req.contentType, ctx.limits.maxUploadBytes);
      const img = ctx.store.addImage((id, createdUs) => ({
        id,
        filename: `${id}-${randomBytes(6).toString('hex')}.${file.kind.ext}`,
        original_name: file.originalName,
        mime_type: file.kind.mime,
        size_bytes: file.bytes.length,
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
        created_us: createdUs,
      }));
      ctx.store.imageBytes.set(img.filename, file.bytes);
      return wrote({ data: shape(ctx, present(img, req.url.origin, false)) }, 201);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/images',
    body: 'none',
    handle(ctx, req) {
      const rows = [...ctx.store.images.values()].sort((a, b) => a.id - b.id);
      const page = paginate(rows, req.query, ctx.limits, req.url);
      return ok({ data: page.rows.map((i) => shape(ctx, present(i, req.url.origin, true))), meta: page.meta });
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/images/{id}',
    body: 'none',
    handle(ctx, req) {
      const id = req.params.id ?? '';
      const n = /^\d+$/.test(id) ? Number(id) : NaN;
      if (!ctx.store.images.has(n)) throw notFound();
      ctx.store.imageBytes.delete(ctx.store.images.get(n)!.filename);
      ctx.store.images.delete(n);
      return wrote(action({ success: true, deleted_id: n }, ctx.representation));
    },
  },
];
