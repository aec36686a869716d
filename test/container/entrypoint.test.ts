// The image's entrypoint (bin/container-entrypoint.sh): a V8 heap limit from the cgroup's memory limit. A fake
// `node` first on PATH prints the arguments it was given.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../bin/container-entrypoint.sh', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'offersync-entrypoint-'));
writeFileSync(join(dir, 'node'), '#!/bin/sh\necho "$@"\n');
chmodSync(join(dir, 'node'), 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(files: Record<string, string>, env: Record<string, string> = {}): string {
  const cgroup = mkdtempSync(join(dir, 'cgroup-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(cgroup, rel, '..'), { recursive: true });
    writeFileSync(join(cgroup, rel), text);
  }
  const r = spawnSync('sh', [SCRIPT, 'daemon'], {
    env: { PATH: `${dir}:${process.env.PATH}`, OFFERSYNC_CGROUP_DIR: cgroup, ...env },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim().replace(/\S*offersync\.js/, 'offersync.js');
}

describe('container entrypoint', () => {
  it.each([
    [
      'cgroup v2, 512 MiB: 3/4 less 32 MB',
      { 'memory.max': '536870912\n' },
      {},
      '--max-old-space-size=352 offersync.js daemon',
    ],
    ['cgroup v2, 256 MiB', { 'memory.max': '268435456\n' }, {}, '--max-old-space-size=160 offersync.js daemon'],
    ['cgroup v2 without a limit', { 'memory.max': 'max\n' }, {}, 'offersync.js daemon'],
    [
      'cgroup v1, 1 GiB',
      { 'memory/memory.limit_in_bytes': '1073741824\n' },
      {},
      '--max-old-space-size=736 offersync.js daemon',
    ],
    ['cgroup v1 "no limit"', { 'memory/memory.limit_in_bytes': '9223372036854771712\n' }, {}, 'offersync.js daemon'],
    ['no cgroup files', {}, {}, 'offersync.js daemon'],
    [
      'OFFERSYNC_HEAP_MB wins',
      { 'memory.max': '536870912\n' },
      { OFFERSYNC_HEAP_MB: '200' },
      '--max-old-space-size=200 offersync.js daemon',
    ],
  ])('%s', (_name, files, env, expected) => {
    expect(run(files, env)).toBe(expected);
  });
});
