// The sandbox switches that make it behave as the marketplace's real server does in its clocks, its database's
// errors and its item update: accounts created with no updated_at, an update's clock that lags, errorInfo bodies,
// and an item PATCH that takes game. A part of the real-server preset.
import type { SandboxOptions } from './sandbox-options.ts';

export const REAL_SERVER_SWITCHES_CLOCK = {
  representation: { updatedAtLagSec: 3600, accountsNullUpdatedAt: true, itemUpdateTakesGame: true },
  faults: { errorInfoBodies: true },
} as const satisfies Pick<SandboxOptions, 'representation' | 'faults'>;
