// Preloaded into a child process (node --import): names under `.test`, a top-level domain reserved for tests,
// resolve to 127.0.0.1 there, as an /etc/hosts line would. A test can then give offersync a base URL that is by
// name another machine (not loopback) while every byte stays on this one.
import dns from 'node:dns';

const resolveElsewhere = dns.lookup;
dns.lookup = function lookup(hostname, options, callback) {
  const cb = typeof options === 'function' ? options : callback;
  const opts = typeof options === 'function' ? {} : typeof options === 'number' ? { family: options } : options;
  if (typeof hostname === 'string' && hostname.endsWith('.test')) {
    process.nextTick(() => (opts?.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)));
    return {};
  }
  return resolveElsewhere.call(this, hostname, options, callback);
};
