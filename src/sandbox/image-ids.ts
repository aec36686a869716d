// image_ids in the four forms of the document: [1, 2]; "1,2"; [{id: 1}]; [{image_id: 1}].

function asId(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

/** The ids in order, or undefined when the value is none of the four forms. */
export function parseImageIds(v: unknown): number[] | undefined {
  if (typeof v === 'string') {
    const s = v.trim();
    if (s === '') return [];
    const parts = s.split(',').map((p) => p.trim());
    if (!parts.every((p) => /^\d+$/.test(p))) return undefined;
    const ids = parts.map(Number);
    return ids.every((n) => n > 0) ? ids : undefined;
  }
  if (!Array.isArray(v)) return undefined;
  const ids: number[] = [];
  for (const el of v) {
    let id: number | undefined;
    if (typeof el === 'object' && el !== null && !Array.isArray(el)) {
      const o = el as Record<string, unknown>;
      id = asId('id' in o ? o.id : o.image_id);
    } else id = asId(el);
    if (id === undefined) return undefined;
    ids.push(id);
  }
  return ids;
}
