// Account prices: an integer is cents; a number with a fraction or a decimal string ("19.99") is in major
// units and becomes cents, rounded half up. Decimal strings are converted digit by digit, never through
// a float, so "19.995" is 2000 and not 1999.

const MAX_CENTS = Number.MAX_SAFE_INTEGER;

function decimalToCents(s: string): number | undefined {
  const m = /^(\d*)\.(\d+)$/.exec(s);
  if (!m) return undefined;
  const whole = Number(m[1] || '0');
  const frac = m[2]!;
  const cents = Number(frac.padEnd(2, '0').slice(0, 2));
  const roundUp = frac.length > 2 && frac.charCodeAt(2) >= 53; // '5'
  return whole * 100 + cents + (roundUp ? 1 : 0);
}

/** Cents, or undefined when the value is not a price at all. Zero and negatives come back as they are. */
export function parsePriceCents(v: unknown): number | undefined {
  let cents: number | undefined;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return undefined;
    if (Number.isInteger(v)) cents = v;
    else {
      const text = String(Math.abs(v));
      const abs = /e/i.test(text) ? Math.round(Math.abs(v) * 100) : decimalToCents(text);
      cents = abs === undefined ? undefined : Math.sign(v) * abs;
    }
  } else if (typeof v === 'string') {
    const s = v.trim();
    const neg = s.startsWith('-');
    const body = neg ? s.slice(1) : s;
    const abs = /^\d+$/.test(body) ? Number(body) : decimalToCents(body);
    cents = abs === undefined ? undefined : neg ? -abs : abs;
  }
  if (cents === undefined || Math.abs(cents) > MAX_CENTS) return undefined;
  return cents === 0 ? 0 : cents; // no -0
}
