// What `validate` knows of past sales: the accounts the seller's sqlite state db (and those of the other sellers
// of its group) saw sold, by login fingerprint, read only, with the key the runs fingerprint with. A catalogue row
// that relists one of them under another external_id is an error before any run. Nothing is made or written: no
// state db or key file yet, no past sales.
import { sellersOf, type Config } from '../config/config.ts';
import type { CatalogueProblem } from '../catalogue/catalogue-problem.ts';
import type { DesiredOffer } from '../catalogue/desired-offer.ts';
import { type AccountMark, accountMarksOfFile } from '../state/account-marks.ts';
import { credentialsKeyPath, existingKeyFile } from '../state/credentials-key.ts';
import { soldAccountMessage } from '../sync/plan/one-live-offer.ts';

export interface PastSales {
  /** The key the seller's runs fingerprint logins with. */
  readonly fingerprintKey: Uint8Array;
  /** fingerprint -> the latest sale of that account. */
  readonly sold: ReadonlyMap<string, AccountMark>;
  /** This seller's id: its own sale is named by external_id alone. */
  readonly seller: string;
}

/** The past sales of the seller whose catalogue is `dir`, when its state is a sqlite file that exists. */
export function pastSales(config: Config, dir: string): PastSales | undefined {
  const seller =
    sellersOf(config).find((c) => c.catalogue.dir === dir) ?? (config.sellerConfigs.length === 0 ? config : undefined);
  if (seller?.state.url !== '') return undefined;
  const key = seller.group?.keyPath
    ? existingKeyFile(seller.group.keyPath)
    : existingKeyFile(credentialsKeyPath(seller.state.path));
  if (!key) return undefined;
  const files = seller.group
    ? seller.group.sellers.map((s) => ({ id: s.id, path: s.statePath }))
    : [{ id: seller.seller, path: seller.state.path }];
  const sold = new Map<string, AccountMark>();
  for (const f of files)
    for (const m of accountMarksOfFile(f.path, f.id)) {
      if (m.remoteStatus !== 'sold') continue;
      const had = sold.get(m.loginFingerprint);
      if (!had || had.at < m.at) sold.set(m.loginFingerprint, m);
    }
  return { fingerprintKey: key, sold, seller: seller.seller };
}

/** An error for each account offer of the catalogue that sells an account sold under another external_id. */
export function relistProblems(offers: readonly DesiredOffer[], past: PastSales): CatalogueProblem[] {
  const out: CatalogueProblem[] = [];
  for (const o of offers) {
    if (o.kind !== 'account' || o.loginFingerprint === undefined) continue;
    const sale = past.sold.get(o.loginFingerprint);
    if (!sale || (sale.seller === past.seller && sale.externalId === o.externalId)) continue;
    out.push({
      severity: 'error',
      file: o.source.file,
      ...(o.source.line !== undefined ? { line: o.source.line } : {}),
      ...(o.source.pointer !== undefined ? { pointer: `${o.source.pointer}/credentials` } : {}),
      kind: 'account',
      externalId: o.externalId,
      field: 'credentials.login',
      message: `${soldAccountMessage({
        externalId: sale.externalId,
        at: sale.at,
        ...(sale.seller === past.seller ? {} : { seller: sale.seller }),
      })}: remove this row`,
    });
  }
  return out;
}
