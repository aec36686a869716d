// The logger never writes a secret: the API key is scrubbed from every line, wherever it hides, and every
// redaction path blanks its value (docs/architecture.md, Secrets).
import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, REDACT_PATHS, silentLogger } from '../../src/log/logger.ts';
import { registerSecret, scrubSecrets } from '../../src/log/scrubber.ts';

function capture(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, logger: createLogger({ level: 'info', destination: { write: (s: string) => lines.push(s) } }) };
}

/** An object holding `value` at `path`, with each * standing for some key. */
function at(path: string, value: string): Record<string, unknown> {
  const keys = path.split('.').map((k) => (k === '*' ? 'x' : k));
  let obj: Record<string, unknown> = { [keys.at(-1)!]: value };
  for (const k of keys.slice(0, -1).reverse()) obj = { [k]: obj };
  return obj;
}

describe('logger', () => {
  it('scrubs a registered API key from the message, the fields and an error', () => {
    const key = 'sk-live-9f8e7d6c5b4a';
    registerSecret(key);
    const { lines, logger } = capture();
    logger.info({ url: `https://x.example/?key=${key}`, err: new Error(`401 for ${key}`) }, `sent with ${key}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(key);
    expect(lines[0]).toContain('[REDACTED]');
    expect(scrubSecrets(`a ${key} b ${key}`)).toBe('a [REDACTED] b [REDACTED]');
  });

  it('scrubs a short value as a whole token only, a longer one anywhere', () => {
    registerSecret('q9');
    expect(scrubSecrets('q9 and "q9" but not aq9b')).toBe('[REDACTED] and "[REDACTED]" but not aq9b');
    registerSecret('wxyz');
    expect(scrubSecrets('[wxyz]')).toBe('[[REDACTED]]');
    registerSecret(undefined);
    registerSecret('');
    expect(scrubSecrets('plain text')).toBe('plain text');
  });

  it.each(REDACT_PATHS.map((p) => [p]))('blanks %s', (path) => {
    const secret = `secret-at-${path}`;
    const { lines, logger } = capture();
    logger.info(at(path, secret), 'an offer');
    expect(lines[0]).not.toContain(secret);
    expect(lines[0]).toContain('[REDACTED]');
  });

  it('blanks the credentials and passwords of an offer wherever a log line carries them', () => {
    const { lines, logger } = capture();
    const credentials = { login: 'l-1', password: 'pw-1', email_login: 'e-1', email_password: 'epw-1' };
    logger.info({
      body: { credentials },
      offer: { credentials },
      password: 'pw-2',
      headers: { authorization: 'Bearer t' },
    });
    for (const secret of ['l-1', 'pw-1', 'e-1', 'epw-1', 'pw-2', 'Bearer t']) expect(lines[0]).not.toContain(secret);
  });

  it('writes JSON lines named offersync, without pid or hostname', () => {
    const { lines, logger } = capture();
    logger.info({ n: 1 }, 'hello');
    const o = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(o).toMatchObject({ level: 30, name: 'offersync', msg: 'hello', n: 1 });
    expect(o).not.toHaveProperty('pid');
    expect(o).not.toHaveProperty('hostname');
  });

  it('the silent logger has no level enabled, fatal included', () => {
    expect(silentLogger.isLevelEnabled('fatal')).toBe(false);
  });
});

describe('logger without a destination', () => {
  // The lines pino hands to the file descriptors, caught at the last step (fs.writeSync) so none reaches the terminal.
  const written: { fd: number; text: string }[] = [];
  const stderr = process.stderr as { isTTY?: boolean };
  const wasTTY = stderr.isTTY;
  afterEach(() => {
    vi.restoreAllMocks();
    written.length = 0;
    stderr.isTTY = wasTTY;
  });
  function catchWrites(): void {
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: string | Uint8Array) => {
      const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
      written.push({ fd, text });
      return Buffer.byteLength(text);
    }) as typeof fs.writeSync);
  }

  it('writes JSON lines to stderr (stdout is for the report), at once, when stderr is not a terminal', () => {
    stderr.isTTY = false;
    const logger = createLogger({ level: 'info' });
    catchWrites();
    logger.warn({ n: 2 }, 'to stderr');
    // Written before warn() returns: a line logged just before a crash is not lost.
    expect(written.map((w) => w.fd)).toEqual([2]);
    expect(JSON.parse(written[0]!.text)).toMatchObject({ msg: 'to stderr', n: 2 });
  });

  it('writes readable coloured lines to stderr when stderr is a terminal', () => {
    stderr.isTTY = true;
    const logger = createLogger({ level: 'info' });
    catchWrites();
    logger.warn({ n: 2 }, 'to a person');
    expect(written.map((w) => w.fd)).toEqual([2]);
    const text = written[0]!.text.replace(/\d\d:\d\d:\d\d/, 'hh:mm:ss');
    // The progress line cleared, then the level in yellow.
    expect(text).toBe('\r\x1b[Khh:mm:ss \x1b[33mWARN \x1b[0m to a person  n=2\n');
  });
});
