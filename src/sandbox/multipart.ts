// The image upload body: multipart/form-data with one file part named `file` or `image`, parsed by the
// platform's own Request.formData (undici), the type decided by magic bytes and never by the name.
import { HttpError, invalid } from './http-error.ts';

export interface ImageKind {
  readonly mime: string;
  readonly ext: string;
}

export function sniffImage(b: Uint8Array): ImageKind | undefined {
  const at = (i: number, bytes: number[]) => bytes.every((x, j) => b[i + j] === x);
  const ascii = (i: number, s: string) =>
    at(
      i,
      [...s].map((c) => c.charCodeAt(0)),
    );
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { mime: 'image/png', ext: 'png' };
  if (at(0, [0xff, 0xd8, 0xff])) return { mime: 'image/jpeg', ext: 'jpg' };
  if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return { mime: 'image/gif', ext: 'gif' };
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return { mime: 'image/webp', ext: 'webp' };
  return undefined;
}

export interface UploadedFile {
  readonly bytes: Buffer;
  readonly originalName: string;
  readonly kind: ImageKind;
}

export async function readUpload(raw: Buffer, contentType: string, maxBytes: number): Promise<UploadedFile> {
  if (!/^multipart\/form-data\s*;.*boundary=/i.test(contentType)) {
    throw invalid('file', 'The upload must be multipart/form-data with one file part named file or image.');
  }
  let form: FormData;
  try {
    form = await new Request('http://sandbox.invalid/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: raw,
      duplex: 'half',
    } as RequestInit).formData();
  } catch {
    throw invalid('file', 'The multipart body could not be parsed.');
  }
  const parts = [...form.getAll('file'), ...form.getAll('image')].filter((p): p is File => typeof p !== 'string');
  if (parts.length === 0) throw invalid('file', 'The file field is required: send one file part named file or image.');
  if (parts.length > 1) throw invalid('file', 'Send exactly one file part (named file or image).');
  const part = parts[0]!;
  if (part.size > maxBytes) throw new HttpError(413, `The file may not be greater than ${maxBytes} bytes.`);
  const bytes = Buffer.from(await part.arrayBuffer());
  if (bytes.length === 0) throw invalid('file', 'The file is empty.');
  const kind = sniffImage(bytes);
  if (!kind) throw invalid('file', 'The file must be an image of type png, jpeg, gif or webp.');
  return { bytes, originalName: part.name || 'upload', kind };
}
