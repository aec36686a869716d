// A kind's normaliser reads each value back by a name its field table's type knows, as the type of that field:
// a misspelt name, an alias, or a field read as another type does not compile (tsc --noEmit checks this file).
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ACCOUNT_FIELDS, CREDENTIAL_FIELDS } from '../../src/catalogue/account-schema.ts';
import { ITEM_FIELDS } from '../../src/catalogue/item-schema.ts';
import type { RecordValues } from '../../src/catalogue/record-values.ts';
import { RecordWalker } from '../../src/catalogue/record-walker.ts';
import type { TOPUP_FIELDS } from '../../src/catalogue/topup-schema.ts';

type ItemValues = RecordValues<typeof ITEM_FIELDS>;
type TopUpValues = RecordValues<typeof TOPUP_FIELDS>;
type AccountValues = RecordValues<typeof ACCOUNT_FIELDS, typeof CREDENTIAL_FIELDS>;

/** Each read below is checked by the compiler; none runs. */
function reads(item: ItemValues, topup: TopUpValues, account: AccountValues): void {
  // @ts-expect-error 'titel' is not a field of the item table
  item.text('titel');
  // @ts-expect-error stock is an int: read as text, its value would not be a string
  item.text('stock');
  // @ts-expect-error offer_title is a top-up's field, not an item's
  item.text('offer_title');
  // @ts-expect-error a top-up's price is not required: it is read with number()
  topup.requiredNumber('price');
  // @ts-expect-error rank is an alias: its value is kept under current_rank
  account.nameOrId('rank');
  // @ts-expect-error credentials hold no 'pasword'
  account.text('credentials.pasword');
}

describe('a field table and its normaliser', () => {
  it('read a value only by a name the table gives a field of that type', () => {
    expectTypeOf<Parameters<ItemValues['text']>[0]>().toEqualTypeOf<
      'title' | 'type' | 'game' | 'server' | 'status' | 'description'
    >();
    expectTypeOf<Parameters<ItemValues['number']>[0]>().toEqualTypeOf<'price' | 'stock'>();
    expectTypeOf<Parameters<ItemValues['requiredText']>[0]>().toEqualTypeOf<'title'>();
    expectTypeOf<Parameters<TopUpValues['bool']>[0]>().toEqualTypeOf<'active'>();
    expectTypeOf<Parameters<AccountValues['nameOrId']>[0]>().toEqualTypeOf<
      'current_rank' | 'current_division' | 'flex_rank' | 'flex_division' | 'previous_rank' | 'previous_division'
    >();
    expectTypeOf<'in_game_name' | 'credentials.password'>().toExtend<Parameters<AccountValues['text']>[0]>();
    expect(reads).toBeTypeOf('function');
  });

  it('the walker hands the values it read, canonical, to the normaliser under those names', () => {
    const record = { value: { external_id: 'i-1', title: 'Skin', price: '19.99', stock: '3' }, pointer: '/0' };
    const w = new RecordWalker('item', ITEM_FIELDS, record, 'items/x.json', undefined);
    expect(w.walk()).toBe('i-1');
    const values = w.values();
    expectTypeOf(values).toEqualTypeOf<ItemValues>();
    expect([values.requiredText('title'), values.requiredNumber('price'), values.number('stock')]).toEqual([
      'Skin',
      1999,
      3,
    ]);
    expect(values.text('game')).toBeUndefined();
  });
});
