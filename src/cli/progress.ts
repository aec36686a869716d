// A one-line progress bar on a TTY: done/total, rate and ETA. Nothing at all when stdout is not a terminal.
export interface Progress {
  update(done: number, total: number): void;
  end(): void;
}

/** For runs whose stdout carries JSON or a plan: no bar at all. */
export const noProgress: Progress = { update() {}, end() {} };

export function createProgress(stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }): Progress {
  if (!stream.isTTY) return { update() {}, end() {} };
  const started = Date.now();
  let last = 0;
  let shown = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      const secs = Math.max(0.001, (now - started) / 1000);
      const rate = done / secs;
      const eta = rate > 0 ? Math.ceil((total - done) / rate) : 0;
      const width = 30;
      const filled = total > 0 ? Math.round((done / total) * width) : width;
      stream.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}  ${rate.toFixed(1)}/s  ETA ${eta}s `,
      );
      shown = true;
    },
    end() {
      if (shown) stream.write('\n');
    },
  };
}
