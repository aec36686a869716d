// "did you mean price?" for a misspelt field name: Levenshtein distance counting a swap of two
// neighbouring letters as one edit (optimal string alignment), the commonest typo ("prcie").

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const w = b.length + 1;
  const d = new Array<number>((a.length + 1) * w);
  for (let i = 0; i <= a.length; i++) d[i * w] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(d[(i - 1) * w + j]! + 1, d[i * w + j - 1]! + 1, d[(i - 1) * w + j - 1]! + cost);
      if (
        i > 1 &&
        j > 1 &&
        a.charCodeAt(i - 1) === b.charCodeAt(j - 2) &&
        a.charCodeAt(i - 2) === b.charCodeAt(j - 1)
      ) {
        v = Math.min(v, d[(i - 2) * w + j - 2]! + 1);
      }
      d[i * w + j] = v;
    }
  }
  return d[a.length * w + b.length]!;
}

/**
 * The closest candidate, when it is close enough to be a typo (1 edit up to 4 letters, 2 up to 8, else 3). A
 * candidate more than one edit away must start with the same letter: a typo rarely hits the first one, and
 * 'notes' is not a misspelt 'roles'.
 */
export function suggest(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  const limit = lower.length <= 4 ? 1 : lower.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    let d = levenshtein(lower, c);
    if (d > 1 && c[0] !== lower[0]) d = Infinity;
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** The unknown-field message, with a suggestion when one is near. */
export function unknownFieldMessage(name: string, candidates: Iterable<string>, what = 'field'): string {
  const s = suggest(name, candidates);
  return s ? `unknown ${what} '${name}': did you mean '${s}'? (ignored)` : `unknown ${what} '${name}' (ignored)`;
}
