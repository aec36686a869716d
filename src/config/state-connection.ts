// Where the PostgreSQL state is and how to sign in: every command opens it the same way, from the configuration.
import type { Config } from './config.ts';

/** The state's URL and, when the URL has none, its password (PGPASSWORD, read once with the configuration). */
export function stateConnection(config: Config): { readonly url: string; readonly password?: string } {
  return { url: config.state.url, ...(config.statePassword ? { password: config.statePassword } : {}) };
}
