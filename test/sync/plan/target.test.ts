// A target's pure parts (the whole runs are in plan/target.run.test.ts): the glob over a whole external_id, the test an
// offer passes only when every part of the target holds, and the flags a target is described by.
import { describe, expect, it } from 'vitest';
import { describeTarget, globRegExp, isTargeted, targetTest } from '../../../src/sync/plan/target.ts';

const matches = (glob: string, ids: string[]) => ids.filter((id) => globRegExp(glob).test(id));

describe('globRegExp', () => {
  it('* is any run of characters, newlines included; ? is exactly one', () => {
    expect(matches('gold-*', ['gold-', 'gold-1', 'gold-1\n2', 'xgold-1', 'gold'])).toEqual([
      'gold-',
      'gold-1',
      'gold-1\n2',
    ]);
    expect(matches('a?c', ['abc', 'a\nc', 'ac', 'abbc'])).toEqual(['abc', 'a\nc']);
    expect(matches('*', ['', 'anything'])).toEqual(['', 'anything']);
  });

  it('[abc] is one of them, [!abc] one not among them, ranges included', () => {
    expect(matches('acc-[12]', ['acc-1', 'acc-2', 'acc-3', 'acc-12', 'acc-['])).toEqual(['acc-1', 'acc-2']);
    expect(matches('acc-[!12]', ['acc-1', 'acc-2', 'acc-3', 'acc-!'])).toEqual(['acc-3', 'acc-!']);
    expect(matches('x[a-c]', ['xb', 'xd', 'x-'])).toEqual(['xb']);
    // A ']' first in a class is one of its characters, as in sh: "[]]" is the class of "]", "[!]]" any other.
    expect(matches('x[]]', ['x]', 'x', 'x]]'])).toEqual(['x]']);
    expect(matches('x[]a]', ['x]', 'xa', 'xb'])).toEqual(['x]', 'xa']);
    expect(matches('x[!]]', ['x]', 'xa', 'x'])).toEqual(['xa']);
    expect(matches('x[!]', ['x[!]', 'xa'])).toEqual(['x[!]']);
    expect(matches('x[\\]', ['x\\', 'x]'])).toEqual(['x\\']);
    expect(matches('[a]*[b]', ['ab', 'axxb', 'ba'])).toEqual(['ab', 'axxb']);
  });

  it('an unclosed bracket and every other character stand for themselves', () => {
    expect(matches('a[b', ['a[b', 'ab'])).toEqual(['a[b']);
    expect(matches('a[', ['a['])).toEqual(['a[']);
    expect(matches('a.b', ['a.b', 'axb'])).toEqual(['a.b']);
    const specials = 'a+b^c$d{1}(e)|f\\g]h.';
    expect(globRegExp(specials).test(specials)).toBe(true);
    expect(matches('a+', ['a+', 'aa'])).toEqual(['a+']);
    expect(matches('(a|b)', ['(a|b)', 'a'])).toEqual(['(a|b)']);
    expect(matches('x{2}', ['x{2}', 'xx'])).toEqual(['x{2}']);
    expect(matches('$^', ['$^'])).toEqual(['$^']);
  });

  it('matches the whole external_id only', () => {
    expect(matches('b', ['b', 'ab', 'ba'])).toEqual(['b']);
  });
});

describe('targetTest', () => {
  it('passes everything when the target says nothing', () => {
    expect(targetTest({})('item', 'x', undefined)).toBe(true);
    expect(targetTest({})('account', 'y', null)).toBe(true);
  });

  it('holds an offer to each part given: kind, file, glob and key', () => {
    const byKind = targetTest({ kinds: ['item', 'topup'] });
    expect([byKind('item', 'a', 'f'), byKind('topup', 'a', 'f'), byKind('account', 'a', 'f')]).toEqual([
      true,
      true,
      false,
    ]);
    const byFile = targetTest({ files: ['items/a.json'] });
    expect([byFile('item', 'a', 'items/a.json'), byFile('item', 'a', 'items/b.json')]).toEqual([true, false]);
    expect([byFile('item', 'a', null), byFile('item', 'a', undefined)]).toEqual([false, false]);
    const byMatch = targetTest({ match: 'a-*' });
    expect([byMatch('item', 'a-1', null), byMatch('item', 'b-1', null)]).toEqual([true, false]);
    const byKey = targetTest({ keys: ['item:a-1'] });
    expect([byKey('item', 'a-1', null), byKey('topup', 'a-1', null), byKey('item', 'a-2', null)]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('needs every part at once', () => {
    const t = targetTest({ kinds: ['item'], files: ['f'], match: 'a*', keys: ['item:a1', 'account:a1'] });
    expect(t('item', 'a1', 'f')).toBe(true);
    expect(t('account', 'a1', 'f')).toBe(false);
    expect(t('item', 'a1', 'g')).toBe(false);
    expect(t('item', 'b1', 'f')).toBe(false);
    const noKey = targetTest({ kinds: ['item'], files: ['f'], match: 'a*', keys: [] });
    expect(noKey('item', 'a1', 'f')).toBe(false);
  });

  it('an empty glob matches only an empty external_id', () => {
    expect(targetTest({ match: '' })('item', 'x', null)).toBe(false);
  });
});

describe('isTargeted and describeTarget', () => {
  it('is targeted when any part is given, even empty', () => {
    expect(isTargeted(undefined)).toBe(false);
    expect(isTargeted({})).toBe(false);
    expect([{ kinds: [] }, { files: [] }, { match: '' }, { keys: [] }].map((t) => isTargeted(t))).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it('says the target as the flags that gave it', () => {
    expect(describeTarget({ kinds: ['item', 'topup'], files: ['a.json', 'b.json'], match: 'gold-*' })).toBe(
      "--only item,topup --file a.json --file b.json --match 'gold-*'",
    );
    expect(describeTarget({ keys: ['item:a'] })).toBe('the 1 offer of the saved plan');
    expect(describeTarget({ keys: ['item:a', 'item:b'] })).toBe('the 2 offers of the saved plan');
    expect(describeTarget({ match: '' })).toBe("--match ''");
    expect(describeTarget({})).toBe('');
  });
});
