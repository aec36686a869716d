// Loaded with `node --import` into a CLI process by memory.bench.ts: samples process.memoryUsage() every 10 ms and,
// at exit, writes the peak heap in use, the kernel's peak RSS (VmHWM) and where the memory was at the highest RSS
// sampled (V8 heap reserved, external, array buffers; anonymous and file-backed pages at exit) to the file named
// by BENCH_MEMORY_OUT.
import { readFileSync, writeFileSync } from 'node:fs';

let peakHeap = 0;
let atPeak = process.memoryUsage();
const sample = () => {
  const m = process.memoryUsage();
  if (m.heapUsed > peakHeap) peakHeap = m.heapUsed;
  if (m.rss > atPeak.rss) atPeak = m;
};
setInterval(sample, 10).unref();
process.on('exit', () => {
  sample();
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  writeFileSync(
    process.env.BENCH_MEMORY_OUT,
    JSON.stringify({
      peakRss: kb('VmHWM'),
      peakHeap,
      atPeak,
      exit: { rssAnon: kb('RssAnon'), rssFile: kb('RssFile') },
    }),
  );
});
