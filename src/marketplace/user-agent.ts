// The User-Agent offersync sends. The marketplace's site answers 429 to an empty one and keeps those of HTTP
// libraries to a few requests a minute (as the marketplace's real server does), and a 429 there bans the whole address
// for minutes: so the agent is always offersync's own, and a configured one that would be refused is refused here,
// before any request, rather than replaced without a word.

/** What HTTP libraries send as their own User-Agent; one containing any of these is cut to a trickle. */
export const LIBRARY_USER_AGENTS = [
  'curl/',
  'python-requests',
  'node-fetch',
  'axios/',
  'got/',
  'undici',
  'okhttp',
  'java/',
] as const;

export function defaultUserAgent(version: string): string {
  return `offersync/${version}`;
}

/** What a User-Agent must be, when `userAgent` is not that; undefined when it may be sent. */
export function userAgentRefusal(userAgent: string): string | undefined {
  const unset = 'leave it unset for offersync/<version>';
  if (userAgent.trim() === '')
    return `a User-Agent that is not empty (the marketplace answers an empty one 429); ${unset}`;
  if (/[\r\n]/.test(userAgent)) return `a User-Agent of one line; ${unset}`;
  const lower = userAgent.toLowerCase();
  const library = LIBRARY_USER_AGENTS.find((name) => lower.includes(name));
  if (library)
    return `a User-Agent without '${library}' (the marketplace allows an HTTP library's 5 requests a minute); ${unset}`;
  return undefined;
}
