// Reading a bulk route's 422 in the marketplace's own words: "items array is required." names the key the
// route wants; "at most 100" names its batch limit. Anything else is a refusal like any other.

/** The array key a 422 message says is required, lower case; undefined when it names none. */
export function requiredKey(message: string): string | undefined {
  const m = /\b([a-z][a-z0-9_]*) (?:array|field|list|parameter) (?:is|are) required\b/i.exec(message);
  return m ? m[1]!.toLowerCase() : undefined;
}

const LIMIT = new RegExp(
  '\\b(?:at most|no more than|not (?:have )?more than|maximum(?: of)?|max(?:imum)? (?:is|of)|up to|' +
    'limit(?: is| of)?) (\\d+)\\b',
  'i',
);

/** The largest batch a 422 message allows; undefined when it names no limit. */
export function batchLimit(message: string): number | undefined {
  const m = LIMIT.exec(message);
  const n = m ? Number(m[1]) : Number.NaN;
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}
