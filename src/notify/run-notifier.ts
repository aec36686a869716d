// Between runs and webhooks: works out what a run has to tell (notification.ts), remembers what was told in the
// state db's meta, and hands the rest to the webhooks without waiting for them.
import type { StateStore } from '../state/state-store.ts';
import type { CatalogueView } from '../sync/plan/catalogue-view.ts';
import type { RunReport } from '../sync/report/run-report.ts';
import { notificationsOfRun, parseTold, unreadableNotification } from './notification.ts';
import type { WebhookNotifier } from './webhook-notifier.ts';

const TOLD_KEY = 'notify.told';

export class RunNotifier {
  constructor(
    private readonly store: Pick<StateStore, 'getMeta' | 'setMeta'>,
    private readonly webhooks: WebhookNotifier,
    private readonly seller: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** After a run that wrote (not a dry run). Never throws: a notification must not fail a run. */
  async afterRun(result: { readonly report: RunReport; readonly catalogue?: CatalogueView }): Promise<void> {
    if (!this.webhooks.enabled || result.report.outcome === 'planned') return;
    try {
      const { notifications, told } = notificationsOfRun(
        result.report,
        result.catalogue,
        this.seller,
        parseTold(await this.store.getMeta(TOLD_KEY)),
        this.now(),
      );
      await this.store.setMeta(TOLD_KEY, JSON.stringify(told));
      this.webhooks.send(notifications);
    } catch {
      // The state db refused the memory of what was told (closing, disk full): the run itself stands.
    }
  }

  /** After a run that could not read the marketplace's lists at all. */
  afterUnreadable(message: string): void {
    if (!this.webhooks.enabled) return;
    this.webhooks.send([unreadableNotification(message, this.seller, this.now())]);
  }

  flush(timeoutMs: number): Promise<void> {
    return this.webhooks.flush(timeoutMs);
  }
}
