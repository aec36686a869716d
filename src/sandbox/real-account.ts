// An account as the real marketplace answers it (representation.realAccounts): `game` as {slug, name}, the ranks
// inside `parameters` as the server maps them, `credentials` and `image_urls` returned, and none of the document's
// flat rank fields, image_ids or platform_account_id.
import { DIVISIONS, RANKS } from './ranks.ts';
import type { OfferRecord } from './sandbox-records.ts';

/** The marketplace's rank ids: unranked 0, iron 1 ... challenger 10. */
function rankId(rank: unknown): number | undefined {
  const i = (RANKS as readonly unknown[]).indexOf(rank);
  return i < 0 ? undefined : i + 1;
}

/** Division ids count up to the top: IV is 1, I is 4. */
function divisionId(division: unknown): number | undefined {
  const i = (DIVISIONS as readonly unknown[]).indexOf(division);
  return i < 0 ? undefined : DIVISIONS.length - i;
}

const APEX = new Set(['master', 'grandmaster', 'challenger']);
/** Games whose LP counts only from master up, and whose apex ranks have no division. */
const LADDER_GAMES = new Set(['lol', 'tft']);

function label(rank: string, division: unknown): string {
  const name = rank[0]!.toUpperCase() + rank.slice(1);
  return typeof division === 'string' ? `${name} ${division}` : name;
}

/** One rank of the account (current, flex or previous) as the server maps it into parameters. */
function mappedRank(
  f: Readonly<Record<string, unknown>>,
  prefix: 'current' | 'flex' | 'previous',
  ladder: boolean,
): Record<string, unknown> {
  const rank = f[`${prefix}_rank`];
  if (typeof rank !== 'string') return {};
  const apex = APEX.has(rank);
  const division = ladder && apex ? undefined : f[`${prefix}_division`];
  const lp = ladder && !apex ? undefined : f[`${prefix}_lp`];
  const id = rankId(rank);
  const divId = divisionId(division);
  if (prefix === 'current')
    return {
      rank_id: id,
      ...(divId !== undefined ? { division_id: divId, division } : {}),
      rank_label: label(rank, division),
      ...(typeof lp === 'number' ? { lp } : {}),
    };
  return {
    [`${prefix}_rank_id`]: id,
    [`${prefix}_rank_label`]: label(rank, division),
    ...(divId !== undefined ? { [`${prefix}_division_id`]: divId, [`${prefix}_division`]: division } : {}),
    ...(typeof lp === 'number' ? { [`${prefix}_lp`]: lp } : {}),
  };
}

export function realAccountParameters(rec: OfferRecord): Record<string, unknown> {
  const f = rec.fields;
  const ladder = typeof f.game === 'string' && LADDER_GAMES.has(f.game.toLowerCase());
  const given = typeof f.parameters === 'object' && f.parameters !== null ? structuredClone(f.parameters) : {};
  return {
    ...given,
    ...mappedRank(f, 'current', ladder),
    ...mappedRank(f, 'flex', ladder),
    ...mappedRank(f, 'previous', ladder),
  };
}

/**
 * The fields of a real account answer, before timestamps and the integer switch are applied. `imageUrl` gives the
 * public url of a gallery image by id (undefined when it is gone).
 */
export function realAccountFields(
  rec: OfferRecord,
  imageUrl: (id: number) => string | undefined,
): Record<string, unknown> {
  const f = rec.fields;
  const game = typeof f.game === 'string' ? { slug: f.game, name: f.game.toUpperCase() } : null;
  const gallery = (Array.isArray(f.image_ids) ? f.image_ids : [])
    .map((id) => imageUrl(id as number))
    .filter((u): u is string => u !== undefined);
  const given = Array.isArray(f.image_urls) ? (f.image_urls as string[]) : [];
  return {
    id: rec.id,
    external_id: rec.external_id,
    title: f.title ?? null,
    slug: `${String(f.title ?? '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')}-${rec.id}`,
    description: f.description ?? null,
    price: f.price ?? null,
    status: rec.status,
    game,
    server: f.server ?? null,
    level: f.level ?? null,
    blue_essence: f.blue_essence ?? null,
    riot_points: f.game_points ?? null,
    champion_count: f.champion_count ?? null,
    skin_count: f.skin_count ?? null,
    parameters: realAccountParameters(rec),
    credentials: f.credentials ? structuredClone(f.credentials) : null,
    image_urls: [...gallery, ...given],
    delivery_time: null,
    is_manual_delivery: false,
    created_at: rec.created_us,
    updated_at: rec.updated_us,
    listed_at: rec.status === 'listed' ? rec.updated_us : null,
    sold_at: rec.sold_us,
  };
}
