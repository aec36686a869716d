import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/command.ts';
import { parseDuration } from '../../src/cli/duration.ts';

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1_500],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text, '--lock-timeout')).toBe(ms);
  });

  it.each(['', '30', 'soon', '5 m', '-1s', '1d', '1m+30s'])('refuses %j, naming the flag', (text) => {
    expect(() => parseDuration(text, '--lock-timeout')).toThrow(UsageError);
    expect(() => parseDuration(text, '--lock-timeout')).toThrow(/--lock-timeout expects a duration/);
  });
});
