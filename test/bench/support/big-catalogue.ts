// The large catalogue of the memory figures: N offers, a third of each kind, 5% of the accounts with an image,
// one NDJSON file per kind (the shape the reconcile bench uses). Prices stay within a few times of each other, so
// the price guard holds no new offer as a typo.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePng } from '../../support/png.ts';

export interface CatalogueShape {
  readonly accounts: number;
  readonly items: number;
  readonly topups: number;
  readonly images: number;
}

/** A distinct 1x1 PNG per seed (up to 65536). */
function png(seed: number): Buffer {
  const c: [number, number, number] = [seed & 0xff, (seed >> 8) & 0xff, 0];
  return makePng(1, 1, c, c);
}

export function writeBigCatalogue(dir: string, n: number): CatalogueShape {
  for (const sub of ['accounts', 'items', 'top-ups', 'images']) mkdirSync(join(dir, sub), { recursive: true });
  const accounts: string[] = [];
  const items: string[] = [];
  const topups: string[] = [];
  let images = 0;
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) {
      const withImage = i % 60 === 0;
      if (withImage) writeFileSync(join(dir, 'images', `a${i}.png`), png(images++));
      accounts.push(
        JSON.stringify({
          external_id: `acc-${i}`,
          title: `Account ${i}`,
          price: 1000 + (i % 5000),
          rank: 'gold_2',
          level: 30,
          champions: ['Ahri'],
          ...(withImage ? { images: [`images/a${i}.png`] } : {}),
        }),
      );
    } else if (i % 3 === 1)
      items.push(JSON.stringify({ external_id: `it-${i}`, title: `Item ${i}`, price: 1000 + (i % 5000), stock: 1 }));
    else {
      const price = 1000 + (i % 5000);
      topups.push(JSON.stringify({ external_id: `tu-${i}`, offer_title: `${i} gems`, price, offer_amount: i }));
    }
  }
  writeFileSync(join(dir, 'accounts', 'a.ndjson'), accounts.join('\n'));
  writeFileSync(join(dir, 'items', 'i.ndjson'), items.join('\n'));
  writeFileSync(join(dir, 'top-ups', 't.ndjson'), topups.join('\n'));
  return { accounts: accounts.length, items: items.length, topups: topups.length, images };
}
