// The `offersync sandbox` flags of the real server's bulk and top-up switches: each sets its option, and none is on
// unless given.
import { describe, expect, it } from 'vitest';
import { sandboxOptions } from '../../src/cli/sandbox.ts';

describe('offersync sandbox: real-server bulk flags', () => {
  it('--real-top-up-names, --bulk-external-id-first and --bulk-real-answers set their switches', () => {
    const { options } = sandboxOptions(['--real-top-up-names', '--bulk-external-id-first', '--bulk-real-answers'], {});
    expect(options.representation?.realTopUpNames).toBe(true);
    expect(options.bulk).toMatchObject({ resolveExternalIdFirst: true, realAnswers: true });
  });

  it('off unless given', () => {
    const { options } = sandboxOptions([], {});
    expect(options.representation?.realTopUpNames).toBe(false);
    expect(options.bulk).toMatchObject({ resolveExternalIdFirst: false, realAnswers: false });
  });
});
