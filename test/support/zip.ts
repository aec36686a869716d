// ZIP archives built byte by byte for hostile-input tests: an .xlsx or .ods whose parts say what a test needs,
// including sizes that lie. Each part: its name, its bytes, and optionally the uncompressed size to declare.
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipPart {
  readonly name: string;
  readonly data: string | Uint8Array;
  /** Declared in the directory instead of the true size (a lie). */
  readonly declaredSize?: number;
}

export function zip(parts: readonly ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const p of parts) {
    const raw = typeof p.data === 'string' ? Buffer.from(p.data) : Buffer.from(p.data);
    const packed = deflateRawSync(raw);
    const name = Buffer.from(p.name);
    const size = p.declaredSize ?? raw.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(raw), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(raw), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** The parts of a minimal .xlsx of one sheet 'Items' whose sheet XML is `sheetData` (and shared strings). */
export function xlsxParts(sheetData: string, sharedStrings?: string): ZipPart[] {
  const ns = 'http://schemas.openxmlformats.org';
  return [
    {
      name: '[Content_Types].xml',
      data:
        `<?xml version="1.0"?><Types xmlns="${ns}/package/2006/content-types">` +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      data:
        `<?xml version="1.0"?><Relationships xmlns="${ns}/package/2006/relationships">` +
        `<Relationship Id="rId1" Type="${ns}/officeDocument/2006/relationships/officeDocument" ` +
        'Target="xl/workbook.xml"/></Relationships>',
    },
    {
      name: 'xl/workbook.xml',
      data:
        `<?xml version="1.0"?><workbook xmlns="${ns}/spreadsheetml/2006/main" ` +
        `xmlns:r="${ns}/officeDocument/2006/relationships"><sheets><sheet name="Items" sheetId="1" r:id="rId1"/>` +
        '</sheets></workbook>',
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data:
        `<?xml version="1.0"?><Relationships xmlns="${ns}/package/2006/relationships">` +
        `<Relationship Id="rId1" Type="${ns}/officeDocument/2006/relationships/worksheet" ` +
        'Target="worksheets/sheet1.xml"/>' +
        (sharedStrings === undefined
          ? ''
          : `<Relationship Id="rId2" Type="${ns}/officeDocument/2006/relationships/sharedStrings" ` +
            'Target="sharedStrings.xml"/>') +
        '</Relationships>',
    },
    {
      name: 'xl/worksheets/sheet1.xml',
      data:
        `<?xml version="1.0"?><worksheet xmlns="${ns}/spreadsheetml/2006/main">` +
        `<sheetData>${sheetData}</sheetData></worksheet>`,
    },
    ...(sharedStrings === undefined
      ? []
      : [
          {
            name: 'xl/sharedStrings.xml',
            data: `<?xml version="1.0"?><sst xmlns="${ns}/spreadsheetml/2006/main">${sharedStrings}</sst>`,
          },
        ]),
  ];
}

/** An inline-string cell and a number cell, for building rows. */
export const textCell = (ref: string, s: string): string => `<c r="${ref}" t="inlineStr"><is><t>${s}</t></is></c>`;
export const numberCell = (ref: string, n: number): string => `<c r="${ref}"><v>${n}</v></c>`;

/** A cell of sheetXlsx: a number cell for a number, a text cell for a string, nothing for null. */
export type SheetCell = string | number | null;

/** An .xlsx of one sheet whose rows are given, the first the header. */
export function sheetXlsx(rows: readonly (readonly SheetCell[])[]): Buffer {
  const letters = (c: number): string => {
    let s = '';
    for (let n = c + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
    return s;
  };
  const xml = rows
    .map((cells, r) => {
      const inner = cells
        .map((v, c) => {
          const ref = `${letters(c)}${r + 1}`;
          return v === null ? '' : typeof v === 'number' ? numberCell(ref, v) : textCell(ref, v);
        })
        .join('');
      return `<row r="${r + 1}">${inner}</row>`;
    })
    .join('');
  return zip(xlsxParts(xml));
}
