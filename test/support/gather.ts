// An async iterable of pages (an OfferView's, the match stage's) gathered into one array, for a test to assert on.
export async function gather<T>(pages: AsyncIterable<readonly T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) out.push(...page);
  return out;
}
