// The one scrubber for text that leaves offersync (stdout, logs, the state db, the status page, webhooks, saved
// plans, --json). It blanks a secret in every form a server or a serializer may have turned it into: as written,
// JSON-escaped (JSON.stringify's escapes, PHP's `\/`, \uXXXX for non-ASCII, escaped once or twice: a message
// quoting a body, then a body quoting that message) and URL-encoded.
//
// Short values: a secret of one or two characters is blanked only where it stands as a whole token, i.e. with
// no letter or digit right before or after it (`"a"`, `password=a`, `a b`), never inside a word: a password "a"
// must not blank every letter a of a message, while a quoted or separate "a" is the value itself. Longer
// secrets are blanked wherever they occur.

export const REDACTED = '[REDACTED]';

/** Below this length a secret is only blanked as a whole token (see above). */
const SHORT_SECRET = 3;

/** Secrets for the life of the process (the API key, a state db password). */
const permanent = new Set<string>();
let compiled: RegExp | null | undefined;

/** Registers a secret for the life of the process: no text offersync writes will carry it. */
export function registerSecret(value: string | undefined): void {
  if (!value || permanent.has(value)) return;
  permanent.add(value);
  compiled = undefined;
}

/**
 * Every registered secret, and `extra`, blanked out of `text`. `extra` are the secrets of one occasion: what a
 * request carried (a marketplace may quote a refused body back), one offer's credentials.
 */
export function scrubSecrets(text: string, extra: Iterable<string | undefined> = []): string {
  // An empty value has no forms (secretForms): it adds nothing to the pattern.
  const more = [...extra].filter((v): v is string => typeof v === 'string');
  let re: RegExp | null;
  if (more.length === 0) {
    if (compiled === undefined) compiled = secretPattern([...permanent]);
    re = compiled;
  } else re = secretPattern([...permanent, ...more]);
  return re === null ? text : text.replace(re, REDACTED);
}

const jsonEscaped = (s: string): string => JSON.stringify(s).slice(1, -1);
const hex4 = (c: string): string => c.charCodeAt(0).toString(16).padStart(4, '0');
/** JSON with every non-ASCII character as \uXXXX (PHP's json_encode, Python's json.dumps). */
const asciiJsonEscaped = (s: string, upper: boolean): string =>
  jsonEscaped(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${upper ? hex4(c).toUpperCase() : hex4(c)}`);

/** The forms a secret can take in text: as written, JSON-escaped (once and twice), URL-encoded. */
export function secretForms(value: string): string[] {
  const once = new Set<string>([value, jsonEscaped(value), asciiJsonEscaped(value, false)]);
  once.add(asciiJsonEscaped(value, true));
  for (const f of [...once]) once.add(f.replaceAll('/', '\\/'));
  const all = new Set<string>(once);
  for (const f of once) all.add(jsonEscaped(f));
  const url = encodeURIComponent(value);
  all.add(url);
  all.add(url.replaceAll('%20', '+'));
  all.delete('');
  return [...all];
}

const regexpEscaped = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/** One pattern for all the forms of all the secrets, longest first, so that one pass blanks each occurrence. */
function secretPattern(values: readonly string[]): RegExp | null {
  const long = new Set<string>();
  const short = new Set<string>();
  for (const v of new Set(values)) for (const f of secretForms(v)) (v.length < SHORT_SECRET ? short : long).add(f);
  if (long.size === 0 && short.size === 0) return null;
  const alternatives = (forms: Set<string>) =>
    [...forms]
      .sort((a, b) => b.length - a.length)
      .map(regexpEscaped)
      .join('|');
  const parts: string[] = [];
  if (long.size > 0) parts.push(alternatives(long));
  if (short.size > 0) parts.push(`(?<![\\p{L}\\p{N}])(?:${alternatives(short)})(?![\\p{L}\\p{N}])`);
  return new RegExp(parts.join('|'), 'gu');
}

/** An error as text for a log line or a report: its message (a thrown non-Error as a string), scrubbed. */
export function errorMessage(err: unknown): string {
  return scrubSecrets(err instanceof Error ? err.message : String(err));
}
