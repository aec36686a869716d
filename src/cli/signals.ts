// SIGTERM, SIGINT and SIGHUP for every command (a container's PID 1 ignores them unless a handler is installed;
// SIGHUP is a closed terminal or ssh session, whose default would kill a run between a write and its journal).
// The first signal asks the running command to stop the way it registered (reconcile: no further write,
// those in flight finish; the daemon: the same, then exit 0); a command that registered nothing exits at once.
// A second signal always exits at once. Exit code for "at once": 128 + the signal number, as shells report it.

const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
export type StopSignal = keyof typeof SIGNAL_NUMBERS;

let graceful: ((signal: StopSignal) => void) | null = null;

/** Registers how the running command stops on the first signal; returns the unregister function. */
export function onStopSignal(fn: (signal: StopSignal) => void): () => void {
  graceful = fn;
  return () => {
    if (graceful === fn) graceful = null;
  };
}

/** A wait for the first stop signal that holds the event loop until then. */
export interface StopWait {
  /** Resolves on the first stop signal, after `onSignal` ran. */
  readonly stopped: Promise<StopSignal>;
  /** Lets go of the event loop and of the signal (a command that ends by itself, on an error). */
  release(): void;
}

/**
 * A daemon must never exit by itself, and with its health server off, no seller claimed or every seller broken,
 * nothing else may hold the event loop (the balancing timer is unref'd so that a stopped replica never lingers).
 */
export function holdUntilStopSignal(onSignal: (signal: StopSignal) => void): StopWait {
  // The longest delay a Node timer takes (2^31 - 1 ms); it does nothing but keep the process alive.
  const hold = setInterval(() => {}, 2_147_483_647);
  let unregister = (): void => {};
  const stopped = new Promise<StopSignal>((resolve) => {
    unregister = onStopSignal((signal) => {
      clearInterval(hold);
      onSignal(signal);
      resolve(signal);
    });
  });
  return {
    stopped,
    release: () => {
      clearInterval(hold);
      unregister();
    },
  };
}

/** Installed once by the process entry point (entry.ts), never by main(): tests call main() in-process. */
export function installSignalHandlers(): void {
  let received = 0;
  for (const [signal, n] of Object.entries(SIGNAL_NUMBERS) as [StopSignal, number][]) {
    process.on(signal, () => {
      // The terminal is gone: what the stop prints cannot reach it, and a failed write must not end the stop.
      if (signal === 'SIGHUP') for (const out of [process.stdout, process.stderr]) out.on('error', () => {});
      received++;
      if (received > 1 || !graceful) process.exit(128 + n);
      graceful(signal);
    });
  }
}
