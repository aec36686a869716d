// The docs' commands, run as a reader runs them. Every ```sh block README.md or a page of docs/ marks with
// `<!-- run as written -->` is run here line by line through bash and `npx offersync` in a folder laid out like a
// fresh clone (no dist/), and each `# ...` line under a command must be in what that command printed (digits
// stand for any number, as timings; a run id for any run id). `/tmp/` paths and port 18080 are moved to this
// test's own folders and a free port, so two runs never meet; nothing else of a command is changed.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// The pages with marked blocks, in the order a reader meets them: a later block may use the sandbox and the
// exports an earlier one started (docs/runs.md's blocks run one after the other, as that page says).
const PAGES = ['README.md', 'docs/catalogue.md', 'docs/runs.md'];
const MARK = '<!-- run as written -->';
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

interface Step {
  readonly command: string;
  readonly expected: string[];
}

/** The steps of each block marked `<!-- run as written -->`: a command and the `#` lines printed under it. */
function markedBlocks(markdown: string): Step[][] {
  const blocks: Step[][] = [];
  for (const m of markdown.matchAll(/<!-- run as written -->\s*\n```sh\n([\s\S]*?)```/g)) {
    const steps: Step[] = [];
    for (const line of (m[1] ?? '').split('\n')) {
      if (line.trim() === '') continue;
      const said = /^# ?(.*)$/.exec(line);
      if (said) {
        // `...` stands for lines left out, before a line or alone.
        const text = (said[1] ?? '').trim().replace(/^\.\.\.\s*/, '');
        if (text !== '' && steps.length > 0) steps.at(-1)?.expected.push(text);
      } else steps.push({ command: line, expected: [] });
    }
    blocks.push(steps);
  }
  return blocks;
}

const loose = (s: string) =>
  s
    .replace(/\brun \d{8}T\d{6}-[0-9a-f]+/g, 'run ID')
    .replace(/\d+/g, 'N')
    .replace(/\s+/g, ' ')
    .trim();

let clone: string;
let scratch: string;
let port: number;
const background: ChildProcess[] = [];

beforeAll(async () => {
  // A clone after `npm install`: the sources, the bin, node_modules, no dist/.
  clone = mkdtempSync(join(tmpdir(), 'offersync-readme-'));
  // Outside the clone, as /tmp is: a path there is printed whole, not relative to the working folder.
  scratch = mkdtempSync(join(tmpdir(), 'offersync-readme-tmp-'));
  for (const f of ['package.json', 'README.md']) copyFileSync(join(ROOT, f), join(clone, f));
  mkdirSync(join(clone, 'bin'));
  copyFileSync(join(ROOT, 'bin', 'offersync.js'), join(clone, 'bin', 'offersync.js'));
  cpSync(join(ROOT, 'config'), join(clone, 'config'), { recursive: true });
  symlinkSync(join(ROOT, 'src'), join(clone, 'src'));
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  port = await freePort();
  npxOfTheClone();
});

afterAll(() => {
  for (const c of background) c.kill('SIGTERM');
  for (const d of [clone, scratch]) if (d) rmSync(d, { recursive: true, force: true });
});

/** The command as run here: its /tmp/ paths in this test's folder, the sandbox port a free one. */
function localised(command: string): string {
  return command.replaceAll('/tmp/', `${scratch}/`).replaceAll('18080', String(port));
}

/**
 * `npx offersync` in the clone runs the clone's own bin, as npx does for the package it is run in, without npm's
 * own start (a second of CPU a command); the first test runs the real npx. Any other npx is npm's.
 */
function npxOfTheClone(): string {
  const dir = join(scratch, 'npx-of-the-clone');
  mkdirSync(dir);
  const script = join(dir, 'npx');
  // Any other npx: npm's, found on PATH after this folder (the first entry).
  writeFileSync(
    script,
    `#!/bin/sh\nif [ "$1" = offersync ]; then shift; exec node ${join(clone, 'bin', 'offersync.js')} "$@"; fi\n` +
      `PATH="\${PATH#*:}" exec npx "$@"\n`,
  );
  chmodSync(script, 0o755);
  return dir;
}

const env = (npx: 'real' | 'of the clone' = 'of the clone') => ({
  PATH: [
    ...(npx === 'real' ? [] : [join(scratch, 'npx-of-the-clone')]),
    join(ROOT, 'node_modules', '.bin'),
    process.env.PATH ?? '',
  ].join(':'),
  HOME: scratch,
  OFFERSYNC_LOG_LEVEL: 'warn',
  npm_config_update_notifier: 'false',
});

async function waitForPort(p: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const up = await fetch(`http://127.0.0.1:${p}/__sandbox/dump`).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listened on ${p}`);
}

describe("the docs' commands, as written", () => {
  const blocks = PAGES.flatMap((page) => markedBlocks(read(page)));

  it('marks the blocks a reader is told to run as written', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
  });

  it('runs every marked block: no page outside the list marks one', () => {
    const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
      f.endsWith('.md'),
    );
    const unlisted = pages.filter((page) => !PAGES.includes(page) && read(page).includes(MARK));
    expect(unlisted, `add these pages to PAGES in ${import.meta.url}`).toEqual([]);
  });

  it('`npx offersync` runs in a clone after npm install (no build): the sources, on the Node of node_modules', () => {
    const r = spawnSync('npx', ['offersync', '--version'], { cwd: clone, env: env('real'), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^offersync \d+\.\d+\.\d+/);
  });

  it('every marked block runs and prints what its page shows', async () => {
    let exports = '';
    for (const [b, steps] of blocks.entries()) {
      for (const step of steps) {
        const command = localised(step.command);
        if (command.startsWith('export ')) {
          exports += `${command}\n`;
          continue;
        }
        if (command.endsWith('&')) {
          const child = spawn('bash', ['-c', `${exports}exec ${command.slice(0, -1)}`], {
            cwd: clone,
            env: env(),
            stdio: 'ignore',
          });
          background.push(child);
          await waitForPort(port);
          continue;
        }
        const r = spawnSync('bash', ['-c', `${exports}${command}`], {
          cwd: clone,
          env: env(),
          encoding: 'utf8',
          timeout: 120_000,
        });
        const printed = loose(`${r.stdout}\n${r.stderr}`);
        for (const line of step.expected)
          expect(
            printed,
            `block ${b + 1}: \`${step.command}\` should print "${line}"; it printed:\n${r.stdout}\n${r.stderr}`,
          ).toContain(loose(localised(line)));
        expect(r.error, `block ${b + 1}: \`${step.command}\``).toBeUndefined();
      }
    }
  }, 300_000);
});
