// The bulk and top-up switches that make the sandbox behave as the marketplace's real server does (its bulk ids
// resolved by external_id first, its answers' shape, its top-up field names), for a "real server" preset.
import type { SandboxOptions } from './sandbox-options.ts';

export const REAL_SERVER_SWITCHES_BULK = Object.freeze({
  representation: Object.freeze({ realTopUpNames: true }),
  bulk: Object.freeze({ resolveExternalIdFirst: true, realAnswers: true }),
}) satisfies Pick<SandboxOptions, 'representation' | 'bulk'>;
