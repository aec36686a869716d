// offersync pull: the marketplace's offers written as a catalogue, for a seller who already sells. Reads only; the
// state db is neither opened nor created. What it writes plans nothing (src/pull/pulled-offer.ts checks each offer).
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { OFFER_KINDS, type OfferKind } from '../catalogue/desired-offer.ts';
import { FORMAT_EXTENSION, formatRecords, formatSheet } from '../catalogue/format-records.ts';
import { classify, FORMATS, isSheetFormat, type Format } from '../catalogue/layout.ts';
import type { Config } from '../config/config.ts';
import { loadConfig } from '../config/load-config.ts';
import type { RemoteOffer } from '../marketplace/marketplace-client.ts';
import { plainHttpVerdict } from '../marketplace/plain-http.ts';
import { createMarketplaceClient } from '../marketplace/undici-marketplace-client.ts';
import { RequestQueue } from '../queue/request-queue.ts';
import { type GalleryOf, galleryUrls, type OwnsOffer, type PulledKind, pullKind } from '../pull/pulled-offer.ts';
import { resourceOf } from '../sync/fields/resource-of.ts';
import { cliLogger } from './cli-logger.ts';
import { EXIT, type Command, type CliIO, UsageError } from './command.ts';
import { flagCommand } from './flag-command.ts';
import { CONFIG_HELP, CONFIG_OPTIONS, configFlags, SELLER_HELP, SELLER_OPTION } from './common-flags.ts';
import { downloadGallery } from './gallery-download.ts';
import { chooseServedSellers } from './served-sellers.ts';
import { clientOptions, queueOptions } from './services.ts';
import {
  atRiskRefusal,
  backUp,
  filesAtRisk,
  isLiveCatalogue,
  liveCatalogueRefusal,
  type PullFile,
} from './pull-target.ts';
import { parseKinds } from './target-flags.ts';

const HELP = `Usage: offersync pull --out <dir> [flags]

Writes the marketplace's offers as a catalogue in <dir>, one file per kind (accounts/accounts.yaml, ...): every
field the marketplace returns that a catalogue holds, prices in major units ("19.99"), ranks as the catalogue
writes them, and each account's gallery downloaded into images/ (the offer names its files under images). After it,
'offersync validate <dir>' is clean and 'offersync plan --catalogue <dir>' plans nothing, even with a fresh
state db: offers are adopted by external_id, never created twice. Offers a catalogue cannot take over as they are
(no external_id, sold, a status no catalogue entry can state) are listed with what to do. Reads only.

  --out <dir>            where to write the catalogue (must be empty, or give --force)
  --format <format>      csv, json, ndjson, yaml, xlsx or ods (default yaml)
  --only <kinds>         only account, item or topup offers (comma-separated for several)
  --force                write into a non-empty <dir>, replacing the files pull writes when they hold nothing the
                         marketplace did not return
  --overwrite            also write into the configured catalogue, and over files holding external_ids,
                         credentials or comments the marketplace did not return; each is kept beside it as a backup
  --with-credentials     write account credentials where the marketplace returns them, in files readable by their
                         owner only (0600). Without it none are written; an entry without credentials leaves the
                         offer's credentials as they are on the marketplace
${SELLER_HELP}

${CONFIG_HELP}

Examples:
  offersync pull --out ./catalogue
  offersync pull --out ./catalogue --format csv --only accounts
  offersync pull --out ./catalogue --force --with-credentials
`;

const KIND_FILE: Readonly<Record<OfferKind, string>> = { account: 'accounts', item: 'items', topup: 'top-ups' };

/** What pull read of one kind, and what it cost. */
interface KindRead {
  readonly offers: readonly RemoteOffer[];
  /** Offers the list held without an external_id. */
  readonly withoutExternalId: number;
  /** Fields only the GET of one offer returned, when it returned any: then every offer was read by GET. */
  readonly getOnly: readonly string[];
}

const OPTIONS = {
  ...CONFIG_OPTIONS,
  ...SELLER_OPTION,
  out: { type: 'string' },
  format: { type: 'string' },
  only: { type: 'string' },
  force: { type: 'boolean' },
  overwrite: { type: 'boolean' },
  'with-credentials': { type: 'boolean' },
} as const;

export const command: Command = flagCommand({
  name: 'pull',
  options: OPTIONS,
  help: HELP,
  async run({ values }, io) {
    if (!values.out) throw new UsageError('--out <dir> is required: the folder to write the catalogue into');
    const format = (values.format ?? 'yaml') as Format;
    if (!FORMATS.includes(format)) throw new UsageError(`--format takes ${FORMATS.join(', ')}, got '${values.format}'`);
    const kinds = onlyKinds(values.only);
    const out = resolve(io.cwd, values.out);
    if (existsSync(out) && !statSync(out).isDirectory())
      throw new UsageError(`${values.out} is a file: --out names the folder to write the catalogue into`);
    const occupied = existsSync(out) && readdirSync(out).length > 0;
    const overwrite = values.overwrite === true;
    if (occupied && !values.force && !overwrite)
      throw new UsageError(
        `${values.out} is not empty: pull writes into an empty folder; give --force to write into it`,
      );
    let config: Config;
    try {
      const [one, ...more] = await chooseServedSellers(
        loadConfig({ flags: configFlags(values), env: io.env, cwd: io.cwd }),
        values.seller,
        io.env,
      );
      if (!one || more.length > 0)
        throw new UsageError('the configuration has several sellers: name one with --seller');
      config = one;
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError((err as Error).message);
    }
    if (!overwrite && isLiveCatalogue(out, config.catalogue.dir))
      throw new UsageError(liveCatalogueRefusal(values.out));
    return pull(io, config, {
      out,
      shown: values.out,
      format,
      kinds,
      withCredentials: values['with-credentials'] === true,
      overwrite,
    });
  },
});

/** The prune policy of plan/decide-removed.ts for an offer no state db knows yet (pull reads a marketplace fresh). */
function ownsOffer(config: Config): OwnsOffer {
  const pattern = config.sync.ownedPattern ? new RegExp(config.sync.ownedPattern) : null;
  return (externalId) => config.sync.prune === 'all' || (config.sync.prune !== 'none' && !!pattern?.test(externalId));
}

function onlyKinds(only: string | undefined): readonly OfferKind[] {
  return only === undefined ? OFFER_KINDS : parseKinds(only);
}

interface PullOptions {
  readonly out: string;
  /** The folder as the seller gave it, for messages. */
  readonly shown: string;
  readonly format: Format;
  readonly kinds: readonly OfferKind[];
  readonly withCredentials: boolean;
  /** Write over the seller's own data (pull-target.ts), keeping a backup of each file replaced. */
  readonly overwrite: boolean;
}

async function pull(io: CliIO, config: Config, opts: PullOptions): Promise<number> {
  if (!config.apiKey)
    throw new UsageError('no API key: set OFFERSYNC_API_KEY, or OFFERSYNC_API_KEY_FILE naming a file that holds it');
  const plainHttp = plainHttpVerdict(config.baseUrl, config.insecure);
  if (plainHttp.kind === 'refused') throw new UsageError(plainHttp.message);
  if (plainHttp.kind === 'warned') io.stdout.write(`Warning: ${plainHttp.message}\n`);
  const logger = cliLogger(config, io);
  const queue = new RequestQueue(queueOptions(config, undefined, logger));
  const client = createMarketplaceClient(clientOptions(config, queue.schedule, logger));
  try {
    // Before anything is read: a folder that cannot be written costs no request.
    mkdirSync(join(opts.out, 'images'), { recursive: true });
  } catch (err) {
    await client.close();
    io.stderr.write(`offersync pull: cannot write ${opts.shown}: ${(err as Error).message}\n`);
    return EXIT.usage;
  }
  const pulled: PulledKind[] = [];
  let backups: string[] = [];
  const reads = new Map<OfferKind, KindRead>();
  let gallery: Awaited<ReturnType<typeof downloadGallery>> | undefined;
  try {
    for (const kind of opts.kinds) reads.set(kind, await readKind(client, kind, config.lists.perPage));
    // Before any file is written, the gallery's included: where pull may write (pull-target.ts).
    const targets: PullFile[] = opts.kinds
      .map((kind) => pullKind(kind, reads.get(kind)!.offers, ownsOffer(config)))
      .filter((p) => p.records.length > 0)
      .map((p) => ({
        rel: `${KIND_FILE[p.kind]}/${KIND_FILE[p.kind]}.${FORMAT_EXTENSION[opts.format]}`,
        kind: p.kind,
        format: opts.format,
        externalIds: new Set(p.records.map((r) => String(r.external_id))),
      }));
    if (opts.overwrite) backups = backUp(opts.out, targets, new Date());
    else {
      const risks = await filesAtRisk(opts.out, targets, config.catalogue.maxFileBytes);
      if (risks.length > 0) {
        io.stderr.write(`offersync pull: ${atRiskRefusal(opts.shown, risks)}.\n`);
        return EXIT.usage;
      }
    }
    const urlsOf = await galleryUrlsOf(client, reads.get('account')?.offers ?? []);
    const urls = [...urlsOf.values()].flat();
    if (urls.length > 0)
      gallery = await downloadGallery(urls, opts.out, {
        baseUrl: config.baseUrl,
        maxBytes: config.catalogue.maxImageBytes,
        timeoutMs: config.http.timeoutMs,
      });
    const galleryFiles = gallery?.byUrl;
    const galleryOf: GalleryOf = (remote) => {
      const paths = (urlsOf.get(remote.id) ?? []).map((u) => galleryFiles?.get(u));
      return paths.length > 0 && paths.every((p) => p !== undefined) ? (paths as string[]) : undefined;
    };
    for (const kind of opts.kinds) pulled.push(pullKind(kind, reads.get(kind)!.offers, ownsOffer(config), galleryOf));
  } catch (err) {
    io.stderr.write(
      `offersync pull: could not read the marketplace at ${new URL(config.baseUrl).origin}: ` +
        `${(err as Error).message}. Nothing was written; run pull again.\n`,
    );
    return EXIT.failed;
  } finally {
    await client.close();
  }
  const files: string[] = [];
  const written: string[] = [];
  for (const p of pulled) {
    if (p.records.length === 0) continue;
    const rel = `${KIND_FILE[p.kind]}/${KIND_FILE[p.kind]}.${FORMAT_EXTENSION[opts.format]}`;
    mkdirSync(join(opts.out, KIND_FILE[p.kind]), { recursive: true });
    const path = join(opts.out, rel);
    const body = isSheetFormat(opts.format)
      ? await formatSheet(opts.format, KIND_FILE[p.kind], p.records)
      : formatRecords(opts.format, p.records);
    writeFileSync(path, body, opts.withCredentials ? { mode: 0o600 } : {});
    if (opts.withCredentials) chmodSync(path, 0o600);
    written.push(rel);
    files.push(`${rel}: ${p.records.length} offer${p.records.length === 1 ? '' : 's'}`);
  }
  io.stdout.write(summary(config, opts, pulled, reads, files, gallery, queue.stats().requests));
  if (backups.length > 0)
    io.stdout.write(`\nThe files replaced are kept beside them:\n${backups.map((f) => `  ${f}\n`).join('')}`);
  const others = otherCatalogueFiles(opts.out, new Set(written));
  if (others.length > 0)
    io.stdout.write(
      `\nAlso in ${opts.shown}, read beside the pulled files (remove those that hold the same offers, or each is ` +
        `there twice):\n${others.map((f) => `  ${f}\n`).join('')}`,
    );
  return EXIT.ok;
}

/** Offer files of the folder that pull did not write (a --force into a catalogue): relative, sorted. */
function otherCatalogueFiles(dir: string, written: ReadonlySet<string>): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => f.split(sep).join('/'))
    .filter((rel) => !written.has(rel) && classify(rel).type === 'offers')
    .sort();
}

/**
 * The urls of each account's gallery, by account id: its image_ids' urls from the image list (read once, when an
 * account has image_ids), else the image_urls of an answer that gives no image_ids. An account whose image_ids the
 * list does not give a url for has none here: it keeps its image_ids.
 */
async function galleryUrlsOf(
  client: ReturnType<typeof createMarketplaceClient>,
  accounts: readonly RemoteOffer[],
): Promise<Map<number, readonly string[]>> {
  const out = new Map<number, readonly string[]>();
  const byIds = accounts.filter((a) => Array.isArray(a.fields.image_ids) && a.fields.image_ids.length > 0);
  const urlOf = new Map<number, string>();
  if (byIds.length > 0) for (const i of await client.images.list()) if (i.url) urlOf.set(i.id, i.url);
  for (const a of accounts) {
    const ids = a.fields.image_ids;
    if (!Array.isArray(ids) || ids.length === 0) {
      const urls = galleryUrls(a);
      if (urls.length > 0) out.set(a.id, urls);
      continue;
    }
    const urls = ids.map((id) => urlOf.get(id as number));
    if (urls.every((u) => u !== undefined)) out.set(a.id, urls as string[]);
  }
  return out;
}

/**
 * Every page of the list in id order. The document gives the GET of one offer the same fields as the list; where a
 * server's GET returns more, the first offer shows it, and then each offer is read by GET (one request each).
 */
async function readKind(
  client: ReturnType<typeof createMarketplaceClient>,
  kind: OfferKind,
  perPage: number,
): Promise<KindRead> {
  const resource = resourceOf(client, kind);
  const offers: RemoteOffer[] = [];
  let withoutExternalId = 0;
  for await (const page of resource.list({ sort: 'id', perPage })) {
    offers.push(...page.items);
    withoutExternalId += page.skipped ?? 0;
  }
  const probe = offers[0];
  if (!probe) return { offers, withoutExternalId, getOnly: [] };
  const one = await resource.get({ id: probe.id });
  const getOnly = Object.keys(one.fields).filter((f) => one.fields[f] != null && probe.fields[f] == null);
  if (getOnly.length === 0) return { offers, withoutExternalId, getOnly };
  const full: RemoteOffer[] = [];
  for (const o of offers) full.push(o.id === one.id ? one : await resource.get({ id: o.id }));
  return { offers: full, withoutExternalId, getOnly };
}

function summary(
  config: Config,
  opts: PullOptions,
  pulled: readonly PulledKind[],
  reads: ReadonlyMap<OfferKind, KindRead>,
  files: readonly string[],
  gallery: Awaited<ReturnType<typeof downloadGallery>> | undefined,
  requests: number,
): string {
  const lines = [`Pulled from ${new URL(config.baseUrl).origin} into ${opts.shown} (${opts.format}):`];
  for (const f of files) lines.push(`  ${f}`);
  if (files.length === 0) lines.push('  no offer the catalogue can take over');
  if (gallery) {
    lines.push(`  images/: ${gallery.written.length} gallery image(s) downloaded (the offers name them by path)`);
    for (const f of gallery.failed)
      lines.push(
        `    not downloaded: ${f}; an account with it keeps its image_ids, which name this seller's images only`,
      );
  }
  lines.push(`  ${requests} request(s) to the marketplace, all reads.`);
  for (const p of pulled) {
    const read = reads.get(p.kind);
    if (read && read.getOnly.length > 0)
      lines.push(
        `  ${p.kind}: the GET of one offer returns ${read.getOnly.join(', ')}, which the list does not: ` +
          `each offer was read by GET (${read.offers.length} requests); a reconcile compares them with what it sent`,
      );
  }
  const unmanaged = pulled.filter((p) => p.notReturned.length > 0);
  if (unmanaged.length > 0) {
    lines.push('', 'Not returned by the marketplace, so not in the catalogue: each stays as it is on the marketplace');
    lines.push('(add a field to an entry to manage it from then on):');
    for (const p of unmanaged) lines.push(`  ${p.kind}: ${p.notReturned.join(', ')}`);
  }
  if (opts.kinds.includes('account'))
    lines.push(
      opts.withCredentials
        ? '  account credentials: the marketplace returns none (API document 2.3); files are 0600 all the same'
        : '  account credentials: not written (--with-credentials); entries without them leave them as they are',
    );
  const notes = pulled.flatMap((p) => p.notes.map((n) => ({ kind: p.kind, ...n })));
  if (notes.length > 0) {
    lines.push('', 'Fields left out of some entries, so that they stay as they are on the marketplace:');
    for (const n of notes) lines.push(`  ${n.kind} ${n.field} (${n.offers} offer(s)): ${n.reason}`);
  }
  const leftOut = pulled.flatMap((p) => p.leftOut);
  const noExternalId = pulled.filter((p) => (reads.get(p.kind)?.withoutExternalId ?? 0) > 0);
  if (leftOut.length > 0 || noExternalId.length > 0) {
    const n = leftOut.length + noExternalId.reduce((a, p) => a + reads.get(p.kind)!.withoutExternalId, 0);
    lines.push('', `Not taken over (${n} offer(s)):`);
    for (const p of noExternalId)
      lines.push(
        `  ${p.kind}: ${reads.get(p.kind)!.withoutExternalId} offer(s) without an external_id; ` +
          'offersync never sees them; do: give each one an external_id on the website, then pull again',
      );
    for (const o of leftOut) {
      lines.push(`  ${o.kind} ${o.externalId ?? '-'} (id ${o.id}): ${o.reason}; do: ${o.todo}`);
      if (o.archivedNextRun)
        lines.push(
          '    WARNING: your sync.prune / sync.ownedPattern owns it, so the next reconcile archives it: ' +
            'add it to the catalogue by hand before that',
        );
    }
  }
  lines.push(
    '',
    `Next: offersync validate ${opts.shown} && offersync plan --catalogue ${opts.shown}`,
    '  (plans no write: with a fresh state db it adopts each offer by its external_id)',
    '',
  );
  return lines.join('\n');
}
