// The marketplace's real server as the sandbox plays it: every switch that describes a way the real server differs
// from the API document, on at once. The client's end-to-end suite runs against it as well as against the
// document's sandbox; `offersync sandbox --real-server` serves it.
import { REAL_SERVER_SWITCHES_BULK } from './real-server-bulk.ts';
import { REAL_SERVER_SWITCHES_CLOCK } from './real-server-switches-clock.ts';
import { REAL_SERVER_SWITCHES_ACCOUNTS, type SandboxOptions } from './sandbox-options.ts';

/** The options of a sandbox that answers as the real server does; `base` adds keys, port, faults. */
export function realServerOptions(base: SandboxOptions = {}): SandboxOptions {
  return {
    ...base,
    defaultPerPage: 15,
    maxPerPage: 50,
    representation: {
      wrapSingle: true,
      createStatus201: true,
      epochTimestamps: true,
      integersAsStrings: true,
      gameAsObject: true,
      numericIdPathsOnly: true,
      externalIdPathHtml: true,
      deleteArchives: true,
      ...REAL_SERVER_SWITCHES_ACCOUNTS.representation,
      ...REAL_SERVER_SWITCHES_CLOCK.representation,
      ...REAL_SERVER_SWITCHES_BULK.representation,
      ...base.representation,
    },
    faults: { ...REAL_SERVER_SWITCHES_CLOCK.faults, ...base.faults },
    // Items read their array under `items`; top-ups under `topups` whatever this says (realTopUpNames).
    bulk: { undocumented: true, updateKey: 'items', limit: 100, ...REAL_SERVER_SWITCHES_BULK.bulk, ...base.bulk },
  };
}
