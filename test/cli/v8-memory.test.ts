// Which catalogues keep reconcile and plan favouring memory over speed: their files' bytes, counted through
// sub-folders, against the threshold; a missing folder is an empty one. Favouring speed turns V8's efficiency mode on.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { favourSpeedOverMemory, filesBytes, isLargeCatalogue } from '../../src/cli/v8-memory.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'offersync-v8-memory-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('isLargeCatalogue', () => {
  it('counts the files of every folder and sub-folder against the threshold', () => {
    mkdirSync(join(dir, 'items', 'more'), { recursive: true });
    writeFileSync(join(dir, 'items', 'a.ndjson'), 'x'.repeat(600));
    writeFileSync(join(dir, 'items', 'more', 'b.csv'), 'x'.repeat(500));
    const other = join(dir, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'c.json'), 'x'.repeat(100));
    expect(filesBytes([join(dir, 'items'), other], Number.POSITIVE_INFINITY)).toBe(1200);
    expect(isLargeCatalogue([join(dir, 'items')], 1100)).toBe(false);
    expect(isLargeCatalogue([join(dir, 'items'), other], 1100)).toBe(true);
    expect(isLargeCatalogue([join(dir, 'items')], 1099)).toBe(true);
  });

  it('leaves the images folder out: an image is read only when it is uploaded', () => {
    mkdirSync(join(dir, 'items'));
    mkdirSync(join(dir, 'images'));
    writeFileSync(join(dir, 'items', 'a.ndjson'), 'x'.repeat(100));
    writeFileSync(join(dir, 'images', 'a.png'), 'x'.repeat(5000));
    expect(isLargeCatalogue([dir], 1000)).toBe(false);
    writeFileSync(join(dir, 'items', 'b.ndjson'), 'x'.repeat(1000));
    expect(isLargeCatalogue([dir], 1000)).toBe(true);
  });

  it('stops counting once past the threshold, and counts a missing folder as empty', () => {
    for (let i = 0; i < 5; i++) writeFileSync(join(dir, `f${i}.ndjson`), 'x'.repeat(1000));
    expect(filesBytes([dir], 1)).toBeLessThan(5000);
    expect(filesBytes([join(dir, 'missing')], 1)).toBe(0);
    expect(isLargeCatalogue([join(dir, 'missing')])).toBe(false);
  });
});

describe('favourSpeedOverMemory', () => {
  it("turns V8's efficiency mode on: read back through V8's own answer", () => {
    setFlagsFromString('--allow-natives-syntax');
    // V8 reads --allow-natives-syntax when it parses: a function made now may ask it.
    const efficiencyMode = new Function('return %IsEfficiencyModeEnabled()') as () => boolean;
    // Off first: a reconcile run earlier in this worker may have turned it on.
    setFlagsFromString('--no-efficiency-mode');
    try {
      expect(efficiencyMode()).toBe(false);
      favourSpeedOverMemory();
      expect(efficiencyMode()).toBe(true);
    } finally {
      setFlagsFromString('--no-efficiency-mode');
    }
  });
});
