// offersync validate and offersync schema, run in-process with captured stdio.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/command.ts';
import { command as schema } from '../../src/cli/schema-command.ts';
import { command as validate } from '../../src/cli/validate.ts';
import { accountFileSchema } from '../../src/catalogue/account-schema.ts';
import { capturedIo } from '../support/captured-io.ts';
import { cleanup, fixture, tmpCatalogue } from './support/tmp-catalogue.ts';

afterEach(cleanup);

const EXAMPLE = fileURLToPath(new URL('../../config/example-catalogue', import.meta.url));
const SCHEMA_DIR = fileURLToPath(new URL('../../config/schema', import.meta.url));

const io = (env: NodeJS.ProcessEnv = {}, cwd = process.cwd(), tty = false) => capturedIo({ env, cwd, tty });

describe('offersync validate', () => {
  it('the example catalogue validates clean: exit 0, zero errors, zero warnings', async () => {
    const c = io();
    expect(await validate.run([EXAMPLE], c)).toBe(0);
    expect(c.out()).toMatch(/valid offers: 6 accounts, 5 items, 4 top-ups/);
    expect(c.out()).toMatch(/0 errors, 0 warnings, 0 quarantined files, 0 invalid offers/);
    expect(c.out()).not.toContain('\x1b[');
  });

  it('takes the directory from catalogue.dir of --config (relative to that file) when none is given', async () => {
    const dir = tmpCatalogue({ 'items/ok.yaml': fixture('good-items.yaml') });
    const cfgDir = mkdtempSync(join(tmpdir(), 'offersync-validate-cfg-'));
    writeFileSync(join(cfgDir, 'offersync.yaml'), `catalogue:\n  dir: ${dir}\n`);
    const c = io({}, '/');
    expect(await validate.run(['--config', join(cfgDir, 'offersync.yaml')], c)).toBe(0);
    expect(c.out()).toContain(dir);
    writeFileSync(join(cfgDir, 'bad.yaml'), 'catalogue: [1]\n');
    await expect(validate.run(['--config', join(cfgDir, 'bad.yaml')], io({}, '/'))).rejects.toThrow(UsageError);
    rmSync(cfgDir, { recursive: true, force: true });
  });

  it('errors: exit 1, a report grouped by file with line/pointer, external_id, field and reason', async () => {
    const dir = tmpCatalogue({
      'accounts/a.json': fixture('bad-prices.json'),
      'items/bad.json': fixture('malformed.json'),
      'items/ok.yaml': fixture('good-items.yaml'),
    });
    const c = io();
    expect(await validate.run([dir], c)).toBe(1);
    const out = c.out();
    expect(out).toContain(
      'accounts/a.json\n  error   accounts/a.json:2:58 /0/price  [p-neg] price: must be greater than zero, got -5\n',
    );
    expect(out).toContain(
      'items/bad.json  (quarantined: its offers are neither updated nor archived)\n  error   items/bad.json:3:41  ' +
        'not valid JSON',
    );
    expect(out).toMatch(/valid offers: 1 account, 2 items, 0 top-ups/);
    expect(out).toMatch(/4 errors, 0 warnings, 1 quarantined file, 3 invalid offers/);
    expect(out).toMatch(/INVALID/);
  });

  it('warnings only: exit 0', async () => {
    const dir = tmpCatalogue({ 'items/a.json': '{"external_id":"a","title":"T","price":1,"prcie":2}' });
    const c = io();
    expect(await validate.run([dir], c)).toBe(0);
    expect(c.out()).toMatch(
      /warning items\/a.json:1:50 \/prcie {2}\[a\] prcie: unknown field 'prcie': did you mean 'price'\?/,
    );
  });

  it('--json: machine-readable report with summary, problems and quarantined files; no credentials', async () => {
    const dir = tmpCatalogue({
      'accounts/a.json': '{"external_id":"a","title":"T","price":1,"credentials":{"password":"hunter2-secret"}}',
      'items/b.json': '[',
    });
    const c = io();
    expect(await validate.run([dir, '--json'], c)).toBe(1);
    const r = JSON.parse(c.out());
    expect(r).toMatchObject({
      valid: false,
      complete: true,
      summary: { offers: { account: 1, item: 0, topup: 0 }, errors: 1, warnings: 0, quarantinedFiles: 1 },
      quarantinedFiles: ['items/b.json'],
    });
    expect(r.problems[0]).toMatchObject({ severity: 'error', file: 'items/b.json', line: 1 });
    expect(c.out()).not.toMatch(/hunter2/);
  });

  it('--format gcc: file:line:column of the value in JSON, NDJSON, YAML and CSV, paths as seen from cwd', async () => {
    const dir = tmpCatalogue({
      'accounts/eu.json': '[\n  {"external_id": "j-1", "title": "T",\n   "price": -1}\n]\n',
      'items/a.ndjson': '{"external_id":"n-1","title":"T","price":1}\n{"external_id":"n-2","title":"T","price":"x"}\n',
      'items/b.yaml': 'offers:\n  - external_id: y-1\n    title: T\n    price: nope\n',
      'top-ups/c.csv': 'external_id;offer_title;price\nc-1;Gems;abc\n',
    });
    const c = io({}, dir);
    expect(await validate.run([dir, '--format', 'gcc'], c)).toBe(1);
    expect(c.out()).toBe(
      [
        'accounts/eu.json:3:13: error: [j-1] price: must be greater than zero, got -1 (/0/price)',
        'items/a.ndjson:2:42: error: [n-2] price: expected integer cents (1999) or a decimal amount in major units ' +
          "(19.99), got 'x'",
        'items/b.yaml:4:12: error: [y-1] price: expected integer cents (1999) or a decimal amount in major units ' +
          "(19.99), got 'nope' (/offers/0/price)",
        'top-ups/c.csv:2:10: error: [c-1] price: expected integer cents (1999) or a decimal amount in major units ' +
          "(19.99), got 'abc'",
        '',
      ].join('\n'),
    );
  });

  it('--format github: workflow annotations with file, line, col and title, data escaped', async () => {
    const dir = tmpCatalogue({ 'items/a.csv': 'external_id,title,price\n"a,1",T,0\n' });
    const c = io({}, join(dir, '..'));
    expect(await validate.run([dir, '--format', 'github'], c)).toBe(1);
    const base = dir.split('/').pop();
    expect(c.out()).toBe(
      `::error file=${base}/items/a.csv,line=2,col=9,title=offersync item a%2C1::[a,1] price: must be greater than ` +
        `zero, got 0\n`,
    );
    await expect(validate.run([dir, '--format', 'xml'], io())).rejects.toThrow(/--format must be one of/);
  });

  it('the text report says how each CSV file was read', async () => {
    const dir = tmpCatalogue({ 'items/a.csv': 'external_id;title;price\na-1;T;2,50\n' });
    const c = io();
    expect(await validate.run([dir], c)).toBe(0);
    expect(c.out()).toContain(
      'CSV files read as:\n  items/a.csv: semicolon-separated (from its header), decimal comma (from its prices)\n',
    );
  });

  it('directory from --catalogue, then OFFERSYNC_CATALOGUE_DIR, then ./catalogue', async () => {
    const dir = tmpCatalogue({ 'items/a.json': '{"external_id":"a","title":"T","price":1}' });
    expect(await validate.run(['--catalogue', dir], io())).toBe(0);
    expect(await validate.run([], io({ OFFERSYNC_CATALOGUE_DIR: dir }))).toBe(0);
    await expect(validate.run([], io({}, dir))).rejects.toThrow(/no such catalogue directory: .*\/catalogue$/);
  });

  it('usage errors (exit 2 through main): unknown flag, two directories, missing directory', async () => {
    await expect(validate.run(['--nope'], io())).rejects.toBeInstanceOf(UsageError);
    await expect(validate.run(['a', 'b'], io())).rejects.toThrow(/at most one directory/);
    await expect(validate.run(['/nonexistent/x'], io())).rejects.toThrow(/no such catalogue directory/);
  });

  it('colour only on a TTY without NO_COLOR', async () => {
    const dir = tmpCatalogue({ 'items/a.json': '{"external_id":"a","title":"T","price":0}' });
    const tty = io({}, process.cwd(), true);
    await validate.run([dir], tty);
    expect(tty.out()).toContain('\x1b[31m');
    const noColour = io({ NO_COLOR: '1' }, process.cwd(), true);
    await validate.run([dir], noColour);
    expect(noColour.out()).not.toContain('\x1b[');
  });

  it('--help', async () => {
    const c = io();
    expect(await validate.run(['--help'], c)).toBe(0);
    expect(c.out()).toMatch(/Usage: offersync validate \[dir\]/);
  });
});

describe('offersync schema', () => {
  it('prints the JSON Schema of the three kinds', async () => {
    const c = io();
    expect(await schema.run([], c)).toBe(0);
    const all = JSON.parse(c.out());
    expect(Object.keys(all)).toEqual(['account', 'item', 'topup']);
    expect(all.account.$defs.account_offer.required).toEqual(['external_id', 'title', 'price']);
    expect(all.topup.$defs.topup_offer.properties.waiting_time_unit.enum).toEqual(['minutes', 'hours', 'days']);
  });

  it('--write writes the files, equal to the committed config/schema', async () => {
    const out = mkdtempSync(join(tmpdir(), 'offersync-schema-'));
    try {
      const c = io({}, out);
      expect(await schema.run(['--write', 'here'], c)).toBe(0);
      for (const k of ['account', 'item', 'topup']) {
        expect(readFileSync(join(out, 'here', `${k}.schema.json`), 'utf8')).toBe(
          readFileSync(join(SCHEMA_DIR, `${k}.schema.json`), 'utf8'),
        );
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('--kind prints one; a bad kind is a usage error', async () => {
    const c = io();
    expect(await schema.run(['--kind', 'item'], c)).toBe(0);
    expect(JSON.parse(c.out()).title).toBe('offersync item catalogue file');
    await expect(schema.run(['--kind', 'pet'], io())).rejects.toBeInstanceOf(UsageError);
  });

  it('the zod schema accepts every example account file record', () => {
    const file = JSON.parse(readFileSync(join(EXAMPLE, 'accounts/eu-west.json'), 'utf8'));
    expect(accountFileSchema.file.safeParse(file).success).toBe(true);
    expect(accountFileSchema.offer.safeParse({ external_id: 'x', title: 'T', price: 1, prcie: 2 }).success).toBe(false);
  });
});
