// Gallery images: multipart upload (part `file`), list, delete. The returned id is what image_ids carries.
import { DecodeError, decodeImage, decodeInteger, decodeResponse, isRecord, unwrapSingle } from './decode.ts';
import { imagePath } from './identifiers.ts';
import type { CallOptions, ImageResource, ImageUpload, RemoteImage } from './marketplace-client.ts';
import { walkPages } from './pagination.ts';
import { callOf, type ResourceContext } from './resource-context.ts';

export function decodeImageDelete(body: unknown): { readonly success: boolean; readonly deletedId?: number } {
  if (body === undefined) return { success: true };
  if (!isRecord(body)) throw new DecodeError('delete answer is not a JSON object');
  const deletedId = decodeInteger(body.deleted_id);
  return {
    success: typeof body.success === 'boolean' ? body.success : true,
    ...(deletedId !== undefined ? { deletedId } : {}),
  };
}

export function createImageResource(ctx: ResourceContext): ImageResource {
  return {
    async upload(file: ImageUpload, opts?: CallOptions): Promise<RemoteImage> {
      const { FormData } = await import('./undici-form-data.ts');
      const form = new FormData();
      form.append(
        'file',
        new Blob([new Uint8Array(file.data)], {
          type: file.mimeType,
        }) /* a copy: Blob wants an ArrayBuffer-backed view */,
        file.filename,
      );
      const res = await ctx.transport.send({
        method: 'POST',
        path: '/images',
        form,
        idempotent: true,
        ...callOf(opts),
      });
      return decodeResponse(res, (body) => decodeImage(unwrapSingle(body)));
    },

    async list(opts?: CallOptions): Promise<readonly RemoteImage[]> {
      // Documented without parameters and with data and meta only: one page, unless meta or links say more.
      const out: RemoteImage[] = [];
      const pages = walkPages<RemoteImage>({
        transport: ctx.transport,
        path: '/images',
        params: new URLSearchParams(),
        pageParam: ctx.list.pageParam,
        numberFirstPage: false,
        maxPages: ctx.list.maxPages,
        decode: (raw) => decodeImage(unwrapSingle(raw)),
        idOf: (i) => i.id,
        ...callOf(opts),
      });
      for await (const page of pages) out.push(...page.items);
      return out;
    },

    async delete(id: number, opts?: CallOptions) {
      const res = await ctx.transport.send({
        method: 'DELETE',
        path: imagePath(id),
        idempotent: true,
        ...callOf(opts),
      });
      return decodeResponse(res, decodeImageDelete);
    },
  };
}
