// A sandbox in a process of its own, for benches that measure a client's pacing: its CPU is not the client's,
// and its limiter keeps its own time. Started with its SandboxOptions as JSON (argv[2]); prints its address.
import { startSandbox } from '../../../src/sandbox/sandbox-server.ts';
import type { SandboxOptions } from '../../../src/sandbox/sandbox-options.ts';

const sandbox = await startSandbox(JSON.parse(process.argv[2] ?? '{}') as SandboxOptions);
process.stdout.write(`${sandbox.url}\n`);
process.on('SIGTERM', () => void sandbox.close().then(() => process.exit(0)));
