// A plan saved to a file (plan --out) and carried out later (reconcile --plan), as `terraform apply PLANFILE`:
// the file holds each write the plan decided, in a form that can be compared, with a digest over all of it.
// Applying re-plans the offers the file covers from the catalogue, state and marketplace as they are now and
// refuses, before any write, when one of them would be planned differently. The file names the state db it was
// made from and its own id, which that state db remembers once applied: a plan applies at most once.
// It holds no credential: a desired offer stands in by its content hash (credentials enter it only as an HMAC).
import { createHash, randomUUID } from 'node:crypto';
import { forbiddenKeyPaths } from '../input/forbidden-keys.ts';
import { canonicalJson } from '../sync/fields/canonical-json.ts';
import { offerKey } from '../catalogue/identity.ts';
import { formatCents } from '../sync/plan/price-guard.ts';
import type { Plan, PlanAction } from '../sync/plan/plan-actions.ts';

export const SAVED_PLAN_FORMAT = 'offersync-plan/1';

/** One write of the plan, as compared: no desired offer (it holds credentials), its content hash instead. */
export type ComparableAction = Readonly<Record<string, unknown>>;

export interface SavedPlan {
  readonly format: typeof SAVED_PLAN_FORMAT;
  /** Random; the state db remembers it once applied. */
  readonly id: string;
  readonly createdAt: string;
  readonly seller: string;
  /** Origin of the marketplace it was planned against (scheme, host, port: never a key). */
  readonly marketplace: string;
  /** The state db it was made from (meta state.id). */
  readonly stateId: string;
  readonly allowMassArchive: boolean;
  /** Made with --allow-price-change (absent in files of an older offersync: false). */
  readonly allowPriceChange?: boolean;
  /** Offer keys ("kind:external_id", "image:sha256") -> the write planned for it. */
  readonly writes: Readonly<Record<string, ComparableAction>>;
  /** sha256 of the canonical JSON of everything above: the file was not edited. */
  readonly digest: string;
}

function keyOf(a: PlanAction): string {
  return a.type === 'upload' ? `image:${a.image.sha256}` : offerKey(a.kind, a.externalId);
}

/** The part of an action that must not change between saving and applying. */
export function comparable(a: PlanAction): ComparableAction | null {
  switch (a.type) {
    case 'create': {
      const { desired, ...rest } = a;
      return { ...rest, desired: desired.hash };
    }
    case 'update': {
      const { desired, ...rest } = a;
      return { ...rest, desired: desired.hash };
    }
    case 'adopt': {
      const { desired, remote, ...rest } = a;
      return { ...rest, desired: desired.hash, remote: { id: remote.id, status: remote.status ?? null } };
    }
    case 'archive':
      return { ...a };
    case 'upload': {
      const { image, neededBy } = a;
      return { type: 'upload', sha256: image.sha256, path: image.path, bytes: image.sizeBytes, neededBy };
    }
    case 'noop':
      return null;
    default:
      return a satisfies never;
  }
}

/** The writes of a plan by key, comparable. */
export function writesOf(plan: Plan): Record<string, ComparableAction> {
  const out: Record<string, ComparableAction> = {};
  for (const a of plan.actions) {
    const c = comparable(a);
    if (c) out[keyOf(a)] = JSON.parse(canonicalJson(c)) as ComparableAction;
  }
  return out;
}

function digestOf(doc: Omit<SavedPlan, 'digest'>): string {
  return createHash('sha256').update(canonicalJson(doc)).digest('hex');
}

export function savePlan(
  plan: Plan,
  meta: {
    id: string;
    seller: string;
    marketplace: string;
    stateId: string;
    allowMassArchive: boolean;
    allowPriceChange?: boolean;
    now: Date;
  },
): SavedPlan {
  const doc: Omit<SavedPlan, 'digest'> = {
    format: SAVED_PLAN_FORMAT,
    id: meta.id,
    createdAt: meta.now.toISOString(),
    seller: meta.seller,
    marketplace: meta.marketplace,
    stateId: meta.stateId,
    allowMassArchive: meta.allowMassArchive,
    allowPriceChange: meta.allowPriceChange ?? false,
    writes: writesOf(plan),
  };
  return { ...doc, digest: digestOf(doc) };
}

/** A saved plan read back, or why it cannot be used. */
export function readSavedPlan(text: string): SavedPlan | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { error: 'not a saved plan: not JSON' };
  }
  const forbidden = forbiddenKeyPaths(v)[0];
  if (forbidden)
    return { error: `not a saved plan: it holds the key /${forbidden.join('/')}, which names a prototype` };
  const p = v as Partial<SavedPlan> | null;
  if (!p || typeof p !== 'object' || p.format !== SAVED_PLAN_FORMAT)
    return { error: `not a saved plan of this offersync (format ${SAVED_PLAN_FORMAT})` };
  const fields = ['id', 'createdAt', 'seller', 'marketplace', 'stateId', 'digest'] as const;
  for (const f of fields) if (typeof p[f] !== 'string') return { error: `not a saved plan: ${f} is missing` };
  if (typeof p.allowMassArchive !== 'boolean' || !p.writes || typeof p.writes !== 'object')
    return { error: 'not a saved plan: writes are missing' };
  if (p.allowPriceChange !== undefined && typeof p.allowPriceChange !== 'boolean')
    return { error: 'not a saved plan: allowPriceChange is not true or false' };
  const { digest, ...rest } = p as SavedPlan;
  if (digestOf(rest) !== digest) return { error: 'the saved plan was changed after it was written (digest differs)' };
  return p as SavedPlan;
}

/**
 * Where a fresh plan of the covered offers differs from the saved one, one line per field as a seller reads it
 * ("lol-acc-004 price: planned 1199.00, the catalogue now says 1099.00"); empty when it is the same plan.
 */
export function differences(saved: SavedPlan, fresh: Plan): string[] {
  const now = writesOf(fresh);
  const out: string[] = [];
  for (const [key, was] of Object.entries(saved.writes)) {
    const is = now[key];
    const who = nameOf(key, was);
    if (!is) out.push(`${who}: planned ${verb(was)}, now nothing to do`);
    else if (canonicalJson(is) !== canonicalJson(was)) out.push(...describe(who, was, is));
  }
  for (const [key, is] of Object.entries(now))
    if (!(key in saved.writes)) out.push(`${nameOf(key, is)}: not in the saved plan, now to ${verb(is)}`);
  return out;
}

/** The external_id (an image by its path), as the seller wrote it. */
function nameOf(key: string, action: ComparableAction): string {
  if (key.startsWith('image:')) return `image ${typeof action.path === 'string' ? action.path : key.slice(6)}`;
  return key.slice(key.indexOf(':') + 1);
}

const verb = (a: ComparableAction): string => String(a.type);

function describe(who: string, was: ComparableAction, is: ComparableAction): string[] {
  if (is.type !== was.type) return [`${who}: planned ${verb(was)}, now ${verb(is)}`];
  const fieldsWas = { ...record(was.fields), ...changedValues(was.changes, 'to') };
  const fieldsIs = { ...record(is.fields), ...changedValues(is.changes, 'to') };
  const byField = Object.keys({ ...fieldsWas, ...fieldsIs })
    .sort()
    .filter((f) => canonicalJson(fieldsWas[f]) !== canonicalJson(fieldsIs[f]))
    .map((f) => `${who} ${f}: planned ${shown(f, fieldsWas[f])}, the catalogue now says ${shown(f, fieldsIs[f])}`);
  if (byField.length > 0) return byField;
  // The catalogue asks the same: the marketplace moved under the plan (an edit on the website, a sale).
  const liveWas = changedValues(was.changes, 'from');
  const liveIs = changedValues(is.changes, 'from');
  const byLive = Object.keys(liveWas)
    .sort()
    .filter((f) => f in liveIs && canonicalJson(liveWas[f]) !== canonicalJson(liveIs[f]))
    .map((f) => `${who} ${f}: the plan saw ${shown(f, liveWas[f])}, the marketplace now shows ${shown(f, liveIs[f])}`);
  if (byLive.length > 0) return byLive;
  if (canonicalJson(was.desired) !== canonicalJson(is.desired))
    return [`${who}: its catalogue entry changed where a plan does not show it (credentials or images)`];
  const other = Object.keys({ ...is, ...was }).filter((k) => canonicalJson(is[k]) !== canonicalJson(was[k]));
  return [`${who}: planned ${verb(was)}, now ${verb(is)} another way (${other.join(', ')})`];
}

function record(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/**
 * An update's values by field, as planned: `to`, what the catalogue asked; `from`, what the marketplace showed (or
 * was last sent).
 */
function changedValues(changes: unknown, side: 'from' | 'to'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(changes))
    for (const c of changes) {
      const field = record(c).field;
      if (typeof field === 'string') out[field] = record(c)[side];
    }
  return out;
}

/** A value as the seller wrote it: a price in major units, text quoted, nothing as "(none)". */
function shown(field: string, v: unknown): string {
  if (v === undefined || v === null) return '(none)';
  if (field === 'price' && typeof v === 'number' && Number.isInteger(v)) return formatCents(v);
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** The offers a saved plan covers, as a planner target. */
export function savedPlanKeys(saved: SavedPlan): string[] {
  return Object.keys(saved.writes).filter((k) => !k.startsWith('image:'));
}

const STATE_ID_KEY = 'state.id';
const APPLIED_KEY = 'plans.applied';
/** Applied plan ids remembered; the oldest are forgotten first. */
const MAX_APPLIED = 1000;

/** What saved plans need of a store; a test's table may answer synchronously. */
type MetaStore = {
  getMeta(key: string): Promise<string | undefined> | string | undefined;
  setMeta(key: string, value: string): Promise<void> | void;
};

/** The state db's own id, made on first use: a saved plan names the state it was made from. */
export async function stateIdOf(store: MetaStore): Promise<string> {
  let id = await store.getMeta(STATE_ID_KEY);
  if (!id) {
    id = randomUUID();
    await store.setMeta(STATE_ID_KEY, id);
  }
  return id;
}

export async function appliedAt(store: MetaStore, planId: string): Promise<string | undefined> {
  return (await appliedList(store)).find((a) => a.id === planId)?.at;
}

export async function markApplied(store: MetaStore, planId: string, now: Date): Promise<void> {
  const list = (await appliedList(store)).filter((a) => a.id !== planId);
  list.push({ id: planId, at: now.toISOString() });
  await store.setMeta(APPLIED_KEY, JSON.stringify(list.slice(-MAX_APPLIED)));
}

async function appliedList(store: MetaStore): Promise<{ id: string; at: string }[]> {
  try {
    const v = JSON.parse((await store.getMeta(APPLIED_KEY)) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((a): a is { id: string; at: string } => typeof a?.id === 'string') : [];
  } catch {
    return [];
  }
}

/** Why a saved plan cannot be applied to this state db and marketplace at all, before anything is read. */
export async function savedPlanRefusal(
  saved: SavedPlan,
  here: { stateId: string; marketplace: string; seller: string },
  store: MetaStore,
): Promise<string | undefined> {
  if (saved.stateId !== here.stateId)
    return (
      `the plan was made from another state db (${saved.stateId}; this one is ${here.stateId}): ` +
      'a saved plan applies only to the state it was made from'
    );
  const at = await appliedAt(store, saved.id);
  if (at) return `the plan was already applied (at ${at}): a saved plan applies at most once`;
  if (saved.marketplace !== here.marketplace)
    return `the plan was made against ${saved.marketplace}, not ${here.marketplace}`;
  if (saved.seller !== here.seller) return `the plan was made for seller ${saved.seller}, not ${here.seller}`;
  return undefined;
}
