// What a seller reads when a price is refused, and the decimal-comma test of CSV cells.
import { describe, expect, it } from 'vitest';
import { hasDecimalComma, parsePrice, typeName, typeOnly } from '../../src/catalogue/price.ts';

describe('price messages', () => {
  it.each([
    [null, 'null'],
    [[1], 'an array'],
    [{ a: 1 }, 'an object'],
    ['x', "the string 'x'"],
    [true, 'boolean true'],
  ])('%j is named %s', (value, name) => {
    expect(typeName(value)).toBe(name);
    if (typeof value !== 'string')
      expect(parsePrice(value)).toEqual({
        error: `expected integer cents (1999) or a decimal amount in major units (19.99), got ${name}`,
      });
  });

  // A credential's value is never quoted back: only what kind of value it was.
  it.each([
    [null, 'null'],
    [['pw'], 'an array'],
    [{ password: 'pw' }, 'an object'],
    [false, 'true or false'],
    ['hunter2', 'a string'],
    [1234, 'a number'],
  ])('a secret %j is named %s, without its value', (value, name) => {
    expect(typeOnly(value)).toBe(name);
  });

  it('says what it got, and why', () => {
    expect(parsePrice('abc')).toEqual({
      error: "expected integer cents (1999) or a decimal amount in major units (19.99), got 'abc'",
    });
    expect(parsePrice(0)).toEqual({ error: 'must be greater than zero, got 0' });
    expect(parsePrice(1)).toEqual({ cents: 1 });
    expect(parsePrice(2 ** 60)).toEqual({ error: `is too large: ${2 ** 60}` });
    expect(parsePrice(Number.POSITIVE_INFINITY)).toEqual({
      error: 'expected integer cents (1999) or a decimal amount in major units (19.99)',
    });
    expect(parsePrice('19.999')).toEqual({
      cents: 2000,
      warning: '19.999 has more than two decimals: rounded to 2000 cents',
    });
    expect(parsePrice('19,999', 'comma')).toEqual({
      cents: 2000,
      warning: '19,999 has more than two decimals: rounded to 2000 cents',
    });
    expect(parsePrice('19.99')).toEqual({ cents: 1999 });
    expect(parsePrice('.55')).toEqual({ cents: 55 });
    expect(parsePrice(19.5)).toEqual({ cents: 1950 });
    for (const bad of ['x1.5', '1.5x'])
      expect(parsePrice(bad)).toEqual({
        error: `expected integer cents (1999) or a decimal amount in major units (19.99), got '${bad}'`,
      });
  });

  it.each([
    ['24,99', true],
    [' 24,99 ', true],
    ['1.299,00', true],
    ['-1,5', true],
    ['24.99', false],
    ['1,299.00', false],
    ['24', false],
    ['12.34,5', false],
  ])('a CSV cell %j has a decimal comma: %s', (cell, yes) => {
    expect(hasDecimalComma(cell)).toBe(yes);
  });
});
