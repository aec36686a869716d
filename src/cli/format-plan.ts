// The plan for people (a table grouped by kind) and for machines (--json). Neither ever shows credentials.
import type { OfferKind } from '../catalogue/desired-offer.ts';
import { OFFER_KINDS } from '../catalogue/desired-offer.ts';
import { oneLine } from '../log/terminal-text.ts';
import { GUARD_NAMES_SHOWN } from '../sync/plan/guard-list.ts';
import type { OfferFields } from '../sync/fields/offer-fields.ts';
import { type Plan, type PlanAction, targetNote } from '../sync/plan/plan-actions.ts';
import type { FieldChange } from '../sync/fields/field-change.ts';
import { formatCents } from '../sync/plan/price-guard.ts';
import { describeCost, type PlanCost } from '../sync/plan/plan-cost.ts';
import { showField, showPrice, showValue } from './show-value.ts';
import { describeSale } from '../sales/unit-sale.ts';

const KIND_TITLE: Record<OfferKind, string> = { account: 'Accounts', item: 'Items', topup: 'Top-ups' };

function changeLine(c: FieldChange): string {
  const tag = c.why === 'drift' ? ' (edited on the marketplace)' : c.why === 'unsent' ? ' (not known to be sent)' : '';
  return `      ${c.field}: ${showField(c.field, c.from)} -> ${showField(c.field, c.to)}${tag}`;
}

/** A JSON-safe view of one action: no desired offer object (it holds credentials), no absolute paths. */
export function actionToJson(a: PlanAction): Record<string, unknown> {
  switch (a.type) {
    case 'create':
      return {
        type: a.type,
        kind: a.kind,
        external_id: a.externalId,
        file: a.desired.source.file,
        reason: a.reason,
        verify_first: a.verifyFirst,
        fields: a.fields,
        credentials: a.desired.kind === 'account' && a.desired.credentials ? '(set)' : undefined,
      };
    case 'update':
      return {
        type: a.type,
        kind: a.kind,
        external_id: a.externalId,
        id: a.remoteId,
        file: a.desired.source.file,
        reason: a.reason,
        changes: a.changes,
        credentials: a.sendCredentials ? '(changed)' : undefined,
        images: a.sendImages || undefined,
      };
    case 'archive':
      return { type: a.type, kind: a.kind, external_id: a.externalId, id: a.remoteId, reason: a.reason };
    case 'adopt':
      return { type: a.type, kind: a.kind, external_id: a.externalId, id: a.remote.id, reason: a.reason };
    case 'upload':
      return {
        type: a.type,
        path: a.image.path,
        sha256: a.image.sha256,
        bytes: a.image.sizeBytes,
        needed_by: a.neededBy,
      };
    case 'noop':
      return {
        type: a.type,
        kind: a.kind,
        external_id: a.externalId,
        reason: a.reason,
        detail: a.detail,
        changes: a.changes,
      };
    default:
      return a satisfies never;
  }
}

export function planToJson(plan: Plan, cost?: PlanCost): Record<string, unknown> {
  const counts: Record<string, Record<string, number>> = {};
  for (const a of plan.actions) {
    const kind = a.type === 'upload' ? 'image' : a.kind;
    const key = a.type === 'noop' ? a.reason : a.type;
    counts[kind] ??= {};
    const row = counts[kind];
    row[key] = (row[key] ?? 0) + 1;
  }
  return {
    changes: plan.actions.some((a) => a.type !== 'noop'),
    counts,
    guard: plan.guard,
    price_guard: plan.priceGuard,
    sales: plan.soldCounts.flatMap((n) => (n.sale ? [n.sale] : [])),
    archive_suppressed: plan.archiveSuppressed,
    ...(plan.target ? { target: plan.target } : {}),
    ...(cost
      ? {
          cost: {
            requests: cost.requests,
            by_route: Object.fromEntries(cost.byRoute.map((r) => [r.route, r.requests])),
            rate_per_sec: cost.ratePerSec,
            seconds: Math.round(cost.seconds * 10) / 10,
          },
        }
      : {}),
    warnings: plan.warnings,
    actions: plan.actions
      .filter((a) => !(a.type === 'noop' && (a.reason === 'unchanged' || a.reason === 'unmanaged')))
      .map(actionToJson),
  };
}

const SHOWN_TYPES = ['create', 'update', 'adopt', 'archive'] as const;

/** How a create's title and price were read, so a seller sees what '1.299,00' became. */
function createdAs(fields: OfferFields): string {
  const title = fields.title ?? fields.offer_title;
  return [
    title !== undefined ? showValue(title) : undefined,
    fields.price !== undefined ? showPrice(fields.price, fields.currency) : undefined,
  ]
    .filter((x) => x !== undefined)
    .join(', ');
}

/** The closing line, as terraform's: what the plan would write, every kind together. */
export function planLine(plan: Plan): string {
  const n = (t: PlanAction['type']) => plan.actions.filter((a) => a.type === t).length;
  const uploads = plan.actions.filter((a) => a.type === 'upload').length;
  return (
    `Plan: ${n('create')} to create, ${n('update')} to update, ${n('archive')} to archive` +
    `${uploads > 0 ? `, ${uploads} image(s) to upload` : ''}.`
  );
}

/**
 * `notSeen`: what the run could not see or would not touch (report/blind-spots.ts); the plan is no all-clear then.
 * `cost`: its requests and their time, told just above the plan's closing line.
 */
export function formatPlan(plan: Plan, notSeen: readonly string[] = [], cost?: PlanCost): string {
  const out: string[] = [];
  const uploads = plan.actions.filter((a) => a.type === 'upload');
  if (uploads.length > 0) {
    out.push(`Images: ${uploads.length} to upload`);
    for (const u of uploads) out.push(`  + upload ${u.image.path} (${u.image.sizeBytes} bytes)`);
    out.push('');
  }
  for (const kind of OFFER_KINDS) {
    const mine = plan.actions.filter(
      (a): a is Exclude<PlanAction, { type: 'upload' }> => a.type !== 'upload' && a.kind === kind,
    );
    if (mine.length === 0) continue;
    const count = (pred: (a: PlanAction) => boolean) => mine.filter(pred).length;
    const summary = [
      ...SHOWN_TYPES.map(
        (t) => [t === 'create' ? 'create' : t === 'update' ? 'update' : t, count((a) => a.type === t)] as const,
      ),
      ['unchanged', count((a) => a.type === 'noop' && a.reason === 'unchanged')] as const,
      [
        'sold',
        count(
          (a) => a.type === 'noop' && (a.reason === 'sold' || a.reason === 'refunded' || a.reason === 'processing'),
        ),
      ] as const,
      [
        'blocked',
        count((a) => a.type === 'noop' && (a.reason === 'blocked' || a.reason === 'drift-reported')),
      ] as const,
      [
        'left alone',
        count((a) => a.type === 'noop' && ['quarantined', 'invalid', 'unconfirmed', 'unmanaged'].includes(a.reason)),
      ] as const,
    ].filter(([, n]) => n > 0);
    out.push(`${KIND_TITLE[kind]}: ${summary.map(([k, n]) => `${n} ${k}`).join(', ')}`);
    for (const a of mine) {
      switch (a.type) {
        case 'create':
          out.push(
            `  + create  ${a.externalId}  ${createdAs(a.fields)}  (${a.desired.source.file}; ` +
              `${a.reason}${a.verifyFirst ? '; looked up first' : ''})`,
          );
          break;
        case 'update':
          out.push(`  ~ update  ${a.externalId}  #${a.remoteId}  (${a.reason})`);
          for (const c of a.changes) out.push(changeLine(c));
          if (a.sendCredentials) out.push('      credentials: (changed)');
          if (a.sendImages) out.push('      image_ids: (after upload)');
          break;
        case 'adopt':
          out.push(`  = adopt   ${a.externalId}  #${a.remote.id}  (${a.reason})`);
          break;
        case 'archive':
          out.push(`  - archive ${a.externalId}  #${a.remoteId}  (${a.reason})`);
          break;
        case 'noop':
          if (a.reason === 'unchanged' || a.reason === 'unmanaged') break;
          out.push(`  ! ${a.reason.padEnd(7)} ${a.externalId}${a.detail ? `  (${a.detail})` : ''}`);
          for (const c of a.changes ?? []) out.push(changeLine(c));
          break;
        default:
          a satisfies never;
      }
    }
    out.push('');
  }
  const note = targetNote(plan);
  if (note) out.push(`Note: ${note}`);
  for (const m of plan.archiveSuppressed) out.push(`Note: ${m}`);
  // An account about to be sold twice says so in capitals, ahead of the rest.
  for (const w of plan.warnings) out.push(w.startsWith('urgent: ') ? `URGENT: ${w.slice(8)}` : `Warning: ${w}`);
  for (const n of plan.soldCounts)
    if (n.sale) out.push(`Sold: ${describeSale(n.sale)} (recorded by the next reconcile)`);
  if (plan.guard.tripped && plan.guard.message) out.push(`STOP: ${plan.guard.message}`);
  if (plan.priceGuard.tripped && plan.priceGuard.message) {
    out.push(`STOP: ${plan.priceGuard.message}`);
    const shown = plan.priceGuard.suspect.slice(0, GUARD_NAMES_SHOWN);
    for (const c of shown) out.push(`  ${c.kind} ${c.externalId}: ${formatCents(c.from)} -> ${formatCents(c.to)}`);
    const more = plan.priceGuard.suspect.length - shown.length;
    if (more > 0) out.push(`  ... and ${more} more (--json lists them all)`);
  }
  const unsaid = notSeen.filter((n) => !plan.archiveSuppressed.includes(n));
  if (unsaid.length > 0) {
    out.push('Not seen or not sent:');
    for (const n of unsaid) out.push(`  ${n}`);
  }
  if (plan.actions.some((a) => a.type !== 'noop')) {
    // Just above the closing line, which stays last.
    if (cost && cost.requests > 0) out.push(`Cost: ${describeCost(cost)}.`);
    out.push(planLine(plan));
  } else if (notSeen.length === 0) out.push('No changes: the marketplace matches the catalogue.');
  else
    out.push(
      'Nothing to send for what could be read, but this is no all-clear: the marketplace may still differ ' +
        'from the catalogue (see above).',
    );
  // Each line escaped: a file name, an external_id or a message is data, and may hold control characters.
  return `${out
    .map(oneLine)
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')}\n`;
}
