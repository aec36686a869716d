// A ZIP container (.xlsx, .ods) read from input is checked by its central directory before anything is unpacked:
// a zip bomb (a few KB that unpack to gigabytes), an entry whose declared size is a lie, an encrypted or ZIP64
// archive, or more entries than a workbook has, is refused with one sentence instead of exhausting memory. The
// reader (hucre) then unpacks no entry past its declared size, so the declared total bounds what is unpacked.
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  /** Offset of the entry's local header. */
  readonly offset: number;
}

export type ZipCheck = { readonly entries: ReadonlyMap<string, ZipEntry> } | { readonly error: string };

/** A workbook has a few dozen parts; thousands are no spreadsheet. */
const MAX_ENTRIES = 2000;
const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/**
 * The entries of a ZIP archive, when their declared sizes together stay within `maxUnpacked` bytes; else why it
 * cannot be read. `what` names the file's kind for the messages ('an .xlsx file').
 */
export function checkZip(buf: Uint8Array, maxUnpacked: number, what: string): ZipCheck {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const notZip: ZipCheck = { error: `not ${what}: it is not a ZIP archive (is it an old .xls, or a renamed file?)` };
  // The end record is in the last 22 + 65,535 (comment) bytes.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return notZip;
  const count = view.getUint16(eocd + 10, true);
  const dirSize = view.getUint32(eocd + 12, true);
  const dirOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || dirOffset === 0xffffffff || dirSize === 0xffffffff)
    return { error: `${what} in ZIP64 form is not read: a catalogue workbook is far below 4 GiB; save it again` };
  if (count > MAX_ENTRIES) return { error: `${what} with ${count} parts is not a spreadsheet offersync reads` };
  if (dirOffset + dirSize > eocd) return notZip;
  const entries = new Map<string, ZipEntry>();
  let total = 0;
  let at = dirOffset;
  const decoder = new TextDecoder();
  for (let n = 0; n < count; n++) {
    if (at + 46 > eocd || view.getUint32(at, true) !== CENTRAL) return notZip;
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const compressedSize = view.getUint32(at + 20, true);
    const uncompressedSize = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const offset = view.getUint32(at + 42, true);
    const name = decoder.decode(buf.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
    if (flags & 1) return { error: `${what} protected by a password is not read: save it without one` };
    if (uncompressedSize === 0xffffffff || compressedSize === 0xffffffff)
      return { error: `${what} in ZIP64 form is not read: a catalogue workbook is far below 4 GiB; save it again` };
    if (method !== STORED && method !== DEFLATED)
      return { error: `${what} whose part '${name}' is compressed by method ${method} is not read: save it again` };
    // Deflate cannot shrink 0 bytes to more than a handful: a part that claims to unpack to nothing but carries
    // data lies about its size, the form of a zip bomb.
    if ((uncompressedSize === 0 && compressedSize > 16) || (method === STORED && uncompressedSize !== compressedSize))
      return { error: `${what} whose part '${name}' misstates its size: the file is damaged or built to harm` };
    total += uncompressedSize;
    if (total > maxUnpacked) {
      return {
        error:
          `${what} that unpacks to more than ${mib(maxUnpacked)} (catalogue.maxFileBytes, which bounds a ` +
          `workbook's unpacked size as it bounds a text file): split it into smaller files`,
      };
    }
    entries.set(name, { name, method, compressedSize, uncompressedSize, offset });
  }
  return { entries };
}

/** One entry's bytes, never more than it declared (checkZip bounded that). */
export function unzipEntry(buf: Uint8Array, entry: ZipEntry): Uint8Array | undefined {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (entry.offset + 30 > buf.length || view.getUint32(entry.offset, true) !== LOCAL) return undefined;
  const start = entry.offset + 30 + view.getUint16(entry.offset + 26, true) + view.getUint16(entry.offset + 28, true);
  const data = buf.subarray(start, start + entry.compressedSize);
  if (entry.method === STORED) return data;
  try {
    return inflateRawSync(data, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
  } catch {
    return undefined;
  }
}
