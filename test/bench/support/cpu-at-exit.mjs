// Loaded with `node --import` into a CLI process by write-cost.bench.ts: at exit, writes to the file named by
// BENCH_CPU_OUT the process's whole CPU (process.cpuUsage: every thread, from its start), the CPU it had used when
// its first marketplace request was made (undici's diagnostics channel), and the CPU of V8's own threads (its
// compilers and collectors, read from /proc/self/task).
import { subscribe } from 'node:diagnostics_channel';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

const TICKS_PER_S = 100;
let firstRequest = null;
const onRequest = () => {
  firstRequest ??= process.cpuUsage();
};
subscribe('undici:request:create', onRequest);

/** CPU seconds of the threads whose name starts with `prefix`. */
function threadsCpu(prefix) {
  let s = 0;
  for (const task of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    if (!name.startsWith(prefix)) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    s += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  }
  return s;
}

process.on('exit', () => {
  writeFileSync(
    process.env.BENCH_CPU_OUT,
    JSON.stringify({ cpu: process.cpuUsage(), firstRequest, v8ThreadsS: threadsCpu('V8Worker') }),
  );
});
