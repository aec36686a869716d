// The front doors stay usable: every relative link in README.md and docs/*.md reaches a file that exists, and a
// link to a heading (`page.md#heading`) reaches a heading of that page. Pages stay readable in one sitting.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs')).flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : [])),
];
const README_MAX_LINES = 200;
const PAGE_MAX_LINES = 400;

const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** The text outside fenced code blocks, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as dashes. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  for (const m of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) found.add(anchorOf(m[1] ?? ''));
  return found;
}

/** Every relative target a page links to: markdown links and images, and HTML `src`/`href`. */
function targets(markdown: string): string[] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, '');
  const links = [...text.matchAll(/\]\(([^)\s]+)\)/g), ...text.matchAll(/(?:src|href)="([^"]+)"/g)];
  return links.map((m) => m[1] ?? '').filter((t) => !/^[a-z][a-z+.-]*:/i.test(t));
}

describe('links between the docs', () => {
  it('finds the README and the pages of docs/', () => {
    expect(PAGES).toContain('README.md');
    expect(PAGES.length).toBeGreaterThan(5);
  });

  it('every relative link reaches a file, and every #anchor a heading of its page', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const target of targets(read(page))) {
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? page : normalize(join(dirname(page), path));
        if (!existsSync(join(ROOT, file))) {
          broken.push(`${page}: ${target} (no file ${file})`);
          continue;
        }
        if (anchor !== undefined && file.endsWith('.md') && !anchors(read(file)).has(anchor))
          broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
      }
    }
    expect(broken, 'fix each link, or the heading it points at').toEqual([]);
  });

  it(`the README is under ${README_MAX_LINES} lines and every page of docs/ at most ${PAGE_MAX_LINES}`, () => {
    const long = PAGES.flatMap((page) => {
      const lines = read(page).split('\n').length - 1;
      const max = page === 'README.md' ? README_MAX_LINES - 1 : PAGE_MAX_LINES;
      return lines > max ? [`${page}: ${lines} lines (at most ${max}); move a topic to a page of its own`] : [];
    });
    expect(long).toEqual([]);
  });
});
