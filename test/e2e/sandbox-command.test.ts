// offersync sandbox as a process: prints where it listens, serves, and exits 0 on SIGTERM.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { sandboxOptions } from '../../src/cli/sandbox.ts';
import { CLI } from '../support/cli.ts';

describe('offersync sandbox flags', () => {
  it('maps flags onto the options, with the env key as default', () => {
    const { options } = sandboxOptions(
      [
        '--port',
        '0',
        '--rate',
        '5',
        '--error-rate',
        '0.1',
        '--wrap',
        '--numeric-id-paths',
        '--api-key',
        'a',
        '--api-key',
        'b',
      ],
      {},
    );
    expect(options).toMatchObject({
      port: 0,
      apiKeys: ['a', 'b'],
      rateLimit: { ratePerSec: 5, burst: 5 },
      faults: { errorRate: 0.1 },
      representation: { wrapSingle: true, numericIdPathsOnly: true },
    });
    expect(sandboxOptions([], { OFFERSYNC_API_KEY: 'envkey' }).options).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      apiKeys: ['envkey'],
    });
    expect(sandboxOptions([], {}).options.apiKeys).toEqual(['sandbox-key']);
  });

  it.each([[['--port', 'x']], [['--error-rate', '2']], [['--burst', '3']], [['--nope']], [['--api-key', '']]])(
    'refuses %j as a usage error',
    (argv) => {
      expect(() => sandboxOptions(argv, {})).toThrow(expect.objectContaining({ name: 'UsageError' }));
    },
  );
});

describe('offersync sandbox process', () => {
  it('listens, answers with the given key, does not print that key, stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [...CLI, 'sandbox', '--port', '0', '--api-key', 'my-secret-key'], {
      cwd: new URL('../..', import.meta.url).pathname,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      const line = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner; stdout: ${out}`)), 20_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) {
            clearTimeout(timer);
            resolve(out);
          }
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      expect(line).not.toContain('my-secret-key');
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      expect(url).toBeDefined();
      const ok = await fetch(`${url}/api/v1/accounts`, { headers: { authorization: 'Bearer my-secret-key' } });
      expect(ok.status).toBe(200);
      expect((await fetch(`${url}/api/v1/accounts`, { headers: { authorization: 'Bearer sandbox-key' } })).status).toBe(
        401,
      );
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
