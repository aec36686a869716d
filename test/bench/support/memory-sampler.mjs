// Loaded with `node --import` into a CLI process by memory.bench.ts: samples the V8 heap in use every 10 ms and,
// at exit, writes the peak heap and the kernel's peak RSS (VmHWM) to the file named by BENCH_MEMORY_OUT.
import { readFileSync, writeFileSync } from 'node:fs';

let peakHeap = 0;
const sample = () => {
  const h = process.memoryUsage().heapUsed;
  if (h > peakHeap) peakHeap = h;
};
setInterval(sample, 10).unref();
process.on('exit', () => {
  sample();
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  writeFileSync(process.env.BENCH_MEMORY_OUT, JSON.stringify({ peakRss: kb('VmHWM'), peakHeap }));
});
