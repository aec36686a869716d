// A field's value as a seller reads it in plans and run summaries: money as money, text quoted, long values cut.
import { formatCents } from '../sync/plan/price-guard.ts';

export function showValue(v: unknown): string {
  if (v === undefined || v === null) return '(none)';
  const s = typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** A price in cents as the seller writes it (1299.00), with the top-up's currency when it states one. */
export function showPrice(cents: number, currency?: string): string {
  return `${formatCents(cents)}${currency ? ` ${currency}` : ''}`;
}

/** Prices are integer cents on the wire; a seller reads them as money, with the cents to tell 20 from 20.00. */
export function showField(field: string, v: unknown): string {
  if (field === 'price' && typeof v === 'number' && Number.isInteger(v)) return `${formatCents(v)} (${v} cents)`;
  return showValue(v);
}
