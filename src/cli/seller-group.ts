// A seller of a group (config sellers[].group), wired: the group's fingerprint key, and a reader of the other
// sellers' account offers, from the PostgreSQL state db the fleet shares or from each seller's own sqlite file.
import type { Config } from '../config/config.ts';
import { type AccountMark, accountMarksOfFile } from '../state/account-marks.ts';
import { KyselyStateStore } from '../state/kysely-state-store.ts';
import type { StateStore } from '../state/state-store.ts';
import { loadGroupKey } from '../state/group-key.ts';

export interface SellerGroupWiring {
  /** Every seller of the group fingerprints a login with it. */
  readonly fingerprintKey: Uint8Array;
  readonly readGroup: () => Promise<readonly AccountMark[]>;
}

/** undefined for a seller on its own. `store`: this seller's own, as opened (before any wrapper). */
export async function sellerGroupWiring(config: Config, store: StateStore): Promise<SellerGroupWiring | undefined> {
  const group = config.group;
  if (!group) return undefined;
  const others = group.sellers.filter((s) => s.id !== config.seller);
  const shared = config.state.url !== '' && store instanceof KyselyStateStore ? store : undefined;
  const fingerprintKey = await loadGroupKey(group, shared ? (k, v) => shared.claimSharedMeta(k, v) : undefined);
  // A group that cannot be read fails the run: listing blind could sell one account twice.
  const unread = (where: string, err: unknown) =>
    new Error(
      `seller group ${group.name}: could not read ${where} (${err instanceof Error ? err.message : String(err)}): ` +
        'nothing is synced for this seller until it can be read; fix or restore it, or take the seller out of ' +
        'the group',
    );
  const readGroup = shared
    ? async () => {
        try {
          return await shared.accountMarksOf(others.map((s) => s.id));
        } catch (err) {
          throw unread('the account offers of its other sellers in the state db', err);
        }
      }
    : async () =>
        others.flatMap((s) => {
          try {
            return accountMarksOfFile(s.statePath, s.id);
          } catch (err) {
            throw unread(`seller ${s.id}'s state db ${s.statePath}`, err);
          }
        });
  return { fingerprintKey, readGroup };
}
