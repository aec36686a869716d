// One game account, one live offer (docs/architecture.md): offers that sell one physical account are known by
// their login fingerprint (catalogue/account-fingerprint.ts), and a run that sees one of them sold
// - refuses to list the account again under any external_id,
// - archives every other live offer of it that offersync manages, as an archive is sent (archive priority),
// - reports at once, as urgent, one it does not manage (made by hand on the website): never touched.
// Two live offers of one account, none sold yet, are reported the same way. Within a seller group the other
// sellers' offers count too (their state dbs' account marks): an account live in another shop of the group is not
// listed here, and one sold there is sold here. Pure: the planner feeds it each matched offer, then lets it
// rewrite the actions it planned for them.
import type { HeldAccount } from '../../catalogue/same-account.ts';
import type { AccountMark } from '../../state/account-marks.ts';
import { isLocked } from './locked-status.ts';
import type { MatchedOffer } from './match.ts';
import type { OfferKey } from '../../catalogue/identity.ts';
import type { ArchiveAction, PlanAction } from './plan-actions.ts';

/** An account offer seen by the run, with its fingerprint, and where its planned actions are. */
interface SeenAccount {
  readonly key: OfferKey;
  readonly externalId: string;
  readonly fingerprint: string;
  /** Listed on the marketplace, neither sold nor archived: the remote id. */
  readonly liveId: number | undefined;
  /** offersync created or adopted the live offer: it may archive it. */
  readonly managed: boolean;
  /** The run may act on it (a targeted run leaves others alone). */
  readonly actionable: boolean;
  /** The planner archives it already (it left the catalogue). */
  readonly archived: boolean;
  /** The catalogue's fingerprint, when the state keeps another (or none): remembered if nothing is sent. */
  readonly unkept: boolean;
  /** Its actions in the planner's list: [from, to). */
  readonly from: number;
  readonly to: number;
}

/** Where and when an account was sold. */
interface Sale {
  readonly externalId: string;
  /** Epoch ms, when known. */
  readonly at: number | undefined;
  /** Another seller of the group that sold it; undefined for this seller's own sale. */
  readonly seller?: string;
}

export interface OneLiveOfferVerdict {
  /** The planner's actions, with those of offers of a sold account replaced. */
  readonly actions: readonly PlanAction[];
  /** Archives of offersync's own offers of a sold account, to route with the others. */
  readonly archives: readonly Omit<ArchiveAction, 'route'>[];
  /** What the seller must see at once: offers it made by hand, or two live offers of one account. */
  readonly urgent: readonly string[];
}

/**
 * The fingerprint an offer is known by: what the catalogue says now (an offer or one held back), else what was
 * sent, else what the server told.
 */
function fingerprintOf(m: MatchedOffer, held: ReadonlyMap<string, string>): string | undefined {
  if (m.kind !== 'account') return undefined;
  const desired = m.desired?.kind === 'account' ? m.desired.loginFingerprint : held.get(m.externalId);
  return desired ?? m.state?.loginFingerprint ?? m.live?.loginFingerprint ?? undefined;
}

function day(at: number | undefined): string {
  return at === undefined ? 'an earlier run' : new Date(at).toISOString().slice(0, 10);
}

function soldAs(sale: Sale): string {
  return sale.seller === undefined ? sale.externalId : `${sale.externalId} by seller ${sale.seller}`;
}

export function soldAccountMessage(sale: Sale): string {
  return `this account was sold on ${day(sale.at)} as ${soldAs(sale)}; it cannot be listed again`;
}

/** An offer of another seller of the group that holds its account now: on sale, or being bought (processing). */
function isLiveMark(m: AccountMark): boolean {
  if (m.remoteId === null || m.remoteStatus === 'archived') return false;
  return m.remoteStatus === 'processing' || !isLocked(m.remoteStatus);
}

function markName(m: AccountMark): string {
  return `seller ${m.seller}'s '${m.externalId}' (#${m.remoteId})`;
}

export class OneLiveOffer {
  readonly #seen: SeenAccount[] = [];
  readonly #sold = new Map<string, Sale>();
  /** external_id -> fingerprint of the catalogue's account offers held back as one account. */
  readonly #held: ReadonlyMap<string, string>;
  /** fingerprint -> the live offers of the other sellers of the group. */
  readonly #elsewhere = new Map<string, AccountMark[]>();

  /** `group`: the account offers of the other sellers of this seller's group, as their state dbs hold them. */
  constructor(held: readonly HeldAccount[], group: readonly AccountMark[] = []) {
    this.#held = new Map(held.map((h) => [h.externalId, h.loginFingerprint]));
    for (const m of group) {
      if (m.remoteStatus === 'sold')
        this.#sale(m.loginFingerprint, { externalId: m.externalId, at: m.at, seller: m.seller });
      else if (isLiveMark(m))
        this.#elsewhere.set(m.loginFingerprint, [...(this.#elsewhere.get(m.loginFingerprint) ?? []), m]);
    }
  }

  /** The latest sale of an account is the one told. */
  #sale(fingerprint: string, sale: Sale): void {
    const had = this.#sold.get(fingerprint);
    if (!had || (had.at ?? 0) < (sale.at ?? 0)) this.#sold.set(fingerprint, sale);
  }

  /** Counts one matched offer; `from`/`to` bound the actions the planner pushed for it. */
  see(m: MatchedOffer, at: { actionable: boolean; archived: boolean; from: number; to: number }): void {
    const fingerprint = fingerprintOf(m, this.#held);
    if (fingerprint === undefined) return;
    const status = m.live?.status ?? m.state?.remoteStatus ?? undefined;
    if (status === 'sold') {
      const at = m.live?.soldAt ?? m.state?.remoteUpdatedAt ?? m.state?.updatedAt ?? undefined;
      this.#sale(fingerprint, { externalId: m.externalId, at: at ?? undefined });
      return;
    }
    const live =
      m.live !== undefined && (m.presence === 'listed' || m.presence === 'remembered') && !isLocked(m.live.status)
        ? m.live.status !== 'archived'
        : false;
    const managed = live && m.state?.managed === true && m.state.remoteId === m.live?.id;
    this.#seen.push({
      key: m.key,
      externalId: m.externalId,
      fingerprint,
      liveId: live ? m.live?.id : undefined,
      managed,
      unkept:
        m.desired?.kind === 'account' &&
        m.desired.loginFingerprint === fingerprint &&
        m.state !== undefined &&
        m.state.loginFingerprint !== fingerprint,
      ...at,
    });
  }

  /** The actions rewritten for offers of sold accounts, and what to report at once. */
  settle(actions: readonly PlanAction[]): OneLiveOfferVerdict {
    const replaced = new Map<number, readonly PlanAction[]>();
    const archives: Omit<ArchiveAction, 'route'>[] = [];
    const urgent: string[] = [];
    const liveBy = new Map<string, SeenAccount[]>();
    for (const s of this.#seen) {
      const sale = this.#sold.get(s.fingerprint);
      if (sale === undefined) {
        if (s.liveId !== undefined) liveBy.set(s.fingerprint, [...(liveBy.get(s.fingerprint) ?? []), s]);
        if (s.unkept && s.actionable) remember(s, actions, replaced);
        const there = this.#elsewhere.get(s.fingerprint)?.[0];
        if (there !== undefined && s.liveId === undefined && s.actionable && !s.archived) {
          const detail =
            `the same game account as ${markName(there)}, live in another shop of its seller group: one account ` +
            `is listed by one shop at a time, so this offer is not listed while that one is (archive it there to ` +
            `list it here, or remove this row)`;
          hold(s, actions, replaced, detail);
        }
        continue;
      }
      if (s.liveId !== undefined && !s.managed) {
        const by = sale.seller === undefined ? '' : ` by seller ${sale.seller}`;
        const message =
          `urgent: account offer '${s.externalId}' (#${s.liveId}), not made by offersync, sells the account sold ` +
          `on ${day(sale.at)} as '${sale.externalId}'${by}: ` +
          'archive it on the website now, or its buyer gets credentials that no longer work (offersync leaves ' +
          'offers it did not make alone)';
        urgent.push(message);
        // Told as an offer that needs the seller (status page, its own webhook event), never written to.
        for (let i = s.from; i < s.to; i++) {
          const a = actions[i]!;
          if (s.actionable && a.type === 'noop' && a.reason === 'unmanaged')
            replaced.set(i, [{ ...a, reason: 'blocked', detail: message, urgent: 'sold-account-live' }]);
        }
        continue;
      }
      if (!s.actionable || s.archived) continue;
      const reason = soldAccountMessage(sale);
      const kind = 'account' as const;
      if (s.liveId !== undefined) {
        // Whatever was planned for it (an update, nothing): the archive replaces it.
        replaced.set(s.from, []);
        for (let i = s.from + 1; i < s.to; i++) replaced.set(i, []);
        archives.push({ type: 'archive', kind, externalId: s.externalId, remoteId: s.liveId, reason });
        const why = reason.replace('this account', 'its account');
        urgent.push(`urgent: account offer '${s.externalId}' (#${s.liveId}) is archived: ${why}`);
        continue;
      }
      hold(s, actions, replaced, reason);
    }
    for (const [fingerprint, group] of liveBy) {
      const there = this.#elsewhere.get(fingerprint) ?? [];
      if (group.length + there.length < 2) continue;
      const names = [
        ...group.map((s) => `'${s.externalId}' (#${s.liveId}${s.managed ? '' : ', made on the website'})`),
        ...there.map(markName),
      ];
      urgent.push(
        `urgent: account offers ${names.join(', ')} sell one game account (the same login): the second buyer ` +
          'would get credentials that no longer work; archive all but one',
      );
    }
    if (replaced.size === 0) return { actions, archives, urgent };
    const out: PlanAction[] = [];
    actions.forEach((a, i) => {
      const r = replaced.get(i);
      if (r === undefined) out.push(a);
      else out.push(...r);
    });
    return { actions: out, archives, urgent };
  }
}

/** The offer's writes (create, update, adopt) replaced by a blocked noop that says why. */
function hold(
  s: SeenAccount,
  actions: readonly PlanAction[],
  replaced: Map<number, readonly PlanAction[]>,
  detail: string,
): void {
  for (let i = s.from; i < s.to; i++) {
    const a = actions[i]!;
    if (a.type !== 'create' && a.type !== 'update' && a.type !== 'adopt') continue;
    replaced.set(i, [{ type: 'noop', kind: 'account', externalId: s.externalId, reason: 'blocked', detail }]);
  }
}

/** An offer sent before its fingerprint was kept, and unchanged since: its fingerprint is written as it is seen. */
function remember(s: SeenAccount, actions: readonly PlanAction[], replaced: Map<number, readonly PlanAction[]>): void {
  for (let i = s.from; i < s.to; i++) {
    const a = actions[i]!;
    if (a.type === 'noop' && a.reason === 'unchanged') replaced.set(i, [{ ...a, loginFingerprint: s.fingerprint }]);
  }
}
