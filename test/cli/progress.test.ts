// Progress on a terminal: reading (catalogue files and marketplace requests together), then writing; nothing
// on a stream that is not a terminal.
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.ts';

describe('progress', () => {
  it('shows the reading phase, keeps it as a line, then the writes with rate and ETA', () => {
    let out = '';
    let t = 0;
    const write = (s: string) => {
      out += s;
      return true;
    };
    const p = createProgress({ isTTY: true, write } as never, () => t);
    p.catalogueFiles(0, 4);
    t += 200;
    p.catalogueFiles(4, 4);
    t += 200;
    p.marketplaceRequest();
    p.marketplaceRequest();
    t += 200;
    p.writes(0, 10);
    t += 1000;
    p.writes(10, 10);
    p.end();
    const lines = out.split('\n').map((l) => l.split('\r\x1b[K').pop());
    expect(lines[0]).toBe('reading: catalogue 4/4 files, marketplace 2 requests  0.6 s');
    expect(lines[1]).toBe('writing: [##############################] 10/10  10.0/s  ETA 0 s');
  });

  it('writes nothing when the stream is not a terminal', () => {
    let out = '';
    const write = (s: string) => {
      out += s;
      return true;
    };
    const p = createProgress({ isTTY: false, write } as never);
    p.catalogueFiles(1, 1);
    p.writes(1, 1);
    p.end();
    expect(out).toBe('');
  });
});
