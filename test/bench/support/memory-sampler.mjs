// Loaded with `node --import` into a CLI process by memory.bench.ts: samples process.memoryUsage() and the kernel's
// peak RSS (VmHWM) every 10 ms and, at exit, writes the peak heap in use, the peak RSS, where the memory was at
// the highest RSS sampled (V8 heap reserved, external, array buffers; anonymous and file-backed pages at exit),
// and when the peak RSS was reached between two samples (a synchronous stretch the sampler could not see), to
// the file named by BENCH_MEMORY_OUT.
import { readFileSync, writeFileSync } from 'node:fs';

const start = performance.now();
const kb = (status, name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
let peakHeap = 0;
let atPeak = process.memoryUsage();
let hwm = 0;
/** The last time VmHWM rose above every RSS sampled: seconds into the run, and the peak it rose to. */
let unseenPeak = null;
const sample = () => {
  const m = process.memoryUsage();
  if (m.heapUsed > peakHeap) peakHeap = m.heapUsed;
  if (m.rss > atPeak.rss) atPeak = m;
  const now = kb(readFileSync('/proc/self/status', 'utf8'), 'VmHWM');
  if (now > hwm) {
    hwm = now;
    if (now > atPeak.rss + 4 * 2 ** 20) unseenPeak = { atS: (performance.now() - start) / 1000, peakRss: now };
  }
};
setInterval(sample, 10).unref();
process.on('exit', () => {
  sample();
  const status = readFileSync('/proc/self/status', 'utf8');
  writeFileSync(
    process.env.BENCH_MEMORY_OUT,
    JSON.stringify({
      peakRss: kb(status, 'VmHWM'),
      peakHeap,
      atPeak,
      unseenPeak,
      exit: { rssAnon: kb(status, 'RssAnon'), rssFile: kb(status, 'RssFile') },
    }),
  );
});
