// Prices to integer cents (docs/architecture.md, Prices): an integer is cents; a number with a fraction, or a string
// with a decimal point, is in major units and becomes round(x * 100). A plain integer string is cents.
// In a CSV file whose decimal mark is a comma (semicolon and tab files as European spreadsheets write them),
// a string with a decimal comma is in major units too: '24,99', '1.299,00' (points group thousands there).

export const DECIMAL_MARKS = ['point', 'comma'] as const;
export type DecimalMark = (typeof DECIMAL_MARKS)[number];

/**
 * The unit a sheet's price column states (a header 'Price (EUR)' or 'price_cents', or catalogue.priceUnit): in
 * major units a whole number is whole euros (89 is 89.00); in cents a fraction is a mistake. Unstated, the API's
 * rule holds (an integer is cents, a fraction major units).
 */
export const PRICE_UNITS = ['cents', 'major'] as const;
export type PriceUnit = (typeof PRICE_UNITS)[number];

/** catalogue.priceUnit: one unit (or auto) for every folder, or one per folder by its name. */
export type PriceUnitSetting =
  | PriceUnit
  | 'auto'
  | {
      readonly accounts?: PriceUnit | 'auto';
      readonly items?: PriceUnit | 'auto';
      readonly 'top-ups'?: PriceUnit | 'auto';
    };

const FOLDER_OF = { account: 'accounts', item: 'items', topup: 'top-ups' } as const;

/** The unit the setting gives a folder's price columns; undefined for auto (the API's rule). */
export function settingUnit(
  setting: PriceUnitSetting | undefined,
  kind: keyof typeof FOLDER_OF | undefined,
): PriceUnit | undefined {
  const unit = typeof setting === 'object' ? (kind ? setting[FOLDER_OF[kind]] : undefined) : setting;
  return unit === 'auto' ? undefined : unit;
}

export type PriceResult = { readonly cents: number; readonly warning?: string } | { readonly error: string };

const EXPECTED = 'expected integer cents (1999) or a decimal amount in major units (19.99)';

const DECIMAL_COMMA = /^[-+]?(\d+|\d{1,3}(\.\d{3})+),\d*$/;

/** Whether a CSV cell is a price written with a decimal comma ('24,99', '1.299,00'). */
export function hasDecimalComma(cell: string): boolean {
  return DECIMAL_COMMA.test(cell.trim());
}

export function parsePrice(value: unknown, mark: DecimalMark = 'point', unit?: PriceUnit): PriceResult {
  const p = parseApiPrice(value, mark);
  if ('error' in p) return p;
  const { whole, ...read } = p;
  if (unit === 'major' && whole) {
    const cents = read.cents * 100;
    return Number.isSafeInteger(cents) ? { cents } : { error: `is too large: ${String(value)}` };
  }
  if (unit === 'cents' && !whole) {
    return {
      error:
        `prices here are in cents (as the column's header or catalogue.priceUnit says): expected a whole number ` +
        `of cents, got ${String(value)}; write ${read.cents}, or say the unit in the header, e.g. 'Price (EUR)'`,
    };
  }
  return read;
}

/** Whether a price cell is a whole number (cents under the API's rule) rather than an amount with a fraction. */
export function isWholePrice(value: unknown, mark: DecimalMark = 'point'): boolean | undefined {
  const p = parseApiPrice(value, mark);
  return 'error' in p ? undefined : p.whole;
}

type ApiPrice =
  | { readonly cents: number; readonly whole: boolean; readonly warning?: string }
  | { readonly error: string };

function parseApiPrice(value: unknown, mark: DecimalMark): ApiPrice {
  let cents: number;
  let major: number | undefined;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { error: EXPECTED };
    if (Number.isInteger(value)) cents = value;
    else {
      major = value;
      cents = Math.round(value * 100);
    }
  } else if (typeof value === 'string') {
    const s = value.trim();
    if (/^[-+]?\d+$/.test(s)) cents = Number(s);
    else if (mark === 'comma') {
      if (!DECIMAL_COMMA.test(s)) {
        return {
          error:
            `this file writes prices with a decimal comma: expected integer cents (1999) or 19,99 or ` +
            `1.299,00, got '${value}'`,
        };
      }
      major = Number(s.replace(/\./g, '').replace(',', '.'));
      cents = Math.round(major * 100);
    } else if (/^[-+]?(\d+\.\d*|\.\d+)$/.test(s)) {
      major = Number(s);
      cents = Math.round(major * 100);
    } else if (s.includes(',')) {
      return {
        error: `${EXPECTED}, got '${value}': a decimal comma is read only in semicolon or tab separated CSV files`,
      };
    } else return { error: `${EXPECTED}, got '${value}'` };
  } else {
    return { error: `${EXPECTED}, got ${typeName(value)}` };
  }
  if (cents <= 0) return { error: `must be greater than zero, got ${String(value)}` };
  if (!Number.isSafeInteger(cents)) return { error: `is too large: ${String(value)}` };
  const whole = major === undefined;
  if (major !== undefined && Math.abs(major * 100 - cents) > 1e-6) {
    return { cents, whole, warning: `${String(value)} has more than two decimals: rounded to ${cents} cents` };
  }
  return { cents, whole };
}

/** What a value is, without the value: for a secret, which is never quoted back. */
export function typeOnly(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'boolean') return 'true or false';
  return `a ${typeof value}`;
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string '${value}'`;
  return `${typeof value} ${String(value)}`;
}
