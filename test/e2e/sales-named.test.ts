// Every sale names the offer where a seller looks: the daemon's log, the webhooks and the status page each say the
// external_id and title of an account sold and of an item's units sold, so the seller hands over the right stock.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.ts';
import { daemonYaml, startDaemon } from '../support/daemon-process.ts';
import { freePort } from '../support/ports.ts';
import { until } from '../support/until.ts';

const KEY = 'sales-named-key-1';
const EXAMPLE = fileURLToPath(new URL('../../config/example-catalogue', import.meta.url));
const ACCOUNT = { id: 'acc-euw-001', title: 'EUW Gold II, 54 champions, ready for ranked' };
const ITEM = { id: 'item-skin-001', title: 'Star Guardian Ahri skin code' };

let sandbox: RunningSandbox;
let hooks: Server;
let dir: string;
const received: Record<string, unknown>[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ apiKeys: [KEY] });
  hooks = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      received.push(JSON.parse(body) as Record<string, unknown>);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  dir = mkdtempSync(join(tmpdir(), 'offersync-sales-named-'));
  cpSync(EXAMPLE, join(dir, 'catalogue'), { recursive: true });
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((r) => hooks.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('a sale is named', () => {
  it('in the daemon log, the webhooks and the status page, with external_id and title', async () => {
    const port = await freePort();
    const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;
    const config = join(dir, 'offersync.yaml');
    writeFileSync(
      config,
      daemonYaml({
        baseUrl: sandbox.url,
        healthPort: port,
        more: [
          'log:\n  format: json\n  level: info',
          'schedule:\n  tick: "* * * * * *"',
          `notify:\n  webhooks: ["${hookUrl}"]\n` +
            '  events: { sold: true, failed: false, backoff: false, guard: false, unreadable: false }',
        ],
      }),
    );
    const d = startDaemon(config, { PATH: process.env.PATH ?? '', OFFERSYNC_API_KEY: KEY }, { cwd: dir });
    try {
      await until('the first sync', () => sandbox.dump().items.some((o) => o.external_id === ITEM.id), 30_000);
      await until('the first run done', () => d.stderr().includes('"msg":"reconcile done"'), 30_000);
      sandbox.setStatus('accounts', ACCOUNT.id, 'sold');
      sandbox.sell('items', ITEM.id, 2);

      const sold = await until('two sold webhooks', () => {
        const s = received.filter((n) => n.event === 'sold');
        return s.length >= 2 ? s : undefined;
      });
      expect(sold).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ external_id: ACCOUNT.id, title: ACCOUNT.title, kind: 'account' }),
          expect.objectContaining({ external_id: ITEM.id, title: ITEM.title, kind: 'item', quantity: 2 }),
        ]),
      );
      const log = await until('both sales in the log', () => {
        const lines = d
          .stderr()
          .split('\n')
          .filter((l) => l.includes('"msg":"sold: '));
        return lines.length >= 2 ? lines.join('\n') : undefined;
      });
      expect(log).toContain(`sold: account ${ACCOUNT.id} (${ACCOUNT.title}): sold`);
      expect(log).toContain(`sold: item ${ITEM.id} (${ITEM.title}): 2 units sold`);

      const page = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      const recent = page.slice(page.indexOf('Recent sales'));
      expect(recent).toContain(ACCOUNT.id);
      expect(recent).toContain(ACCOUNT.title);
      expect(recent).toContain(ITEM.id);
      expect(recent).toContain(ITEM.title);
    } finally {
      d.child.kill('SIGTERM');
      await d.exited;
    }
  });
});
