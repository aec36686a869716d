// Which window budget a seller's queue shares (config rateLimit.sharedBy): the marketplace's site counts the
// requests of a client address, so by default every seller reaching the same marketplace host from here shares
// one; `key` gives each API key its own. The scope names the budget in the process and in the state db.
import { createHash } from 'node:crypto';
import type { Config } from '../config/config.ts';
import type { WindowBudget } from '../queue/window-budget.ts';
import { processWindowBudgets, type WindowBudgets } from '../queue/window-budgets.ts';

export function windowScope(config: Pick<Config, 'baseUrl' | 'apiKey' | 'rateLimit'>): string {
  const host = new URL(config.baseUrl).host;
  if (config.rateLimit.sharedBy === 'address') return `address:${host}`;
  // Never the key itself: a digest that tells keys apart.
  return `key:${host}:${createHash('sha256').update(config.apiKey).digest('hex').slice(0, 16)}`;
}

/** The seller's budget in this process, with the window the configuration sets by hand (rateLimit.window). */
export function windowBudgetOf(
  config: Pick<Config, 'baseUrl' | 'apiKey' | 'rateLimit'>,
  budgets: WindowBudgets = processWindowBudgets,
): WindowBudget {
  const budget = budgets.budget(windowScope(config), config.rateLimit.learnWindowSeconds * 1000);
  if (config.rateLimit.window) budget.setLimit(config.rateLimit.window);
  return budget;
}
