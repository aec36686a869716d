// Started by `npm run` or `npx`, offersync is npm's grandchild, and a supervisor's SIGTERM reaches npm only: npm
// exits and offersync would run on, orphaned, holding its lease and port. So when npm started it (npm sets
// npm_command), the launcher going away counts as a stop signal. Started any other way (a container's PID 1,
// systemd, `nohup ... &`), the parent leaving means nothing and nothing is watched.

/** How often the parent is looked at: a stop is noticed within this, and the check costs nothing. */
const EVERY_MS = 1000;

/** Whether npm (npm run, npm exec, npx) started this process. */
export function startedByNpm(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.npm_command || env.npm_lifecycle_event);
}

/**
 * Calls `onGone` once when the process that started this one is gone (this process was handed to another
 * parent). Returns the stop function; the timer never holds the event loop.
 */
export function watchLauncher(onGone: () => void, ppid: () => number = () => process.ppid): () => void {
  const first = ppid();
  const timer = setInterval(() => {
    if (ppid() === first) return;
    clearInterval(timer);
    onGone();
  }, EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
