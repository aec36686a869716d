// offersync healthcheck: asks this machine's daemon for /healthz (or /readyz with --ready), for a container
// HEALTHCHECK or a Kubernetes exec probe (the image has no curl; podman runs kube probes inside the container).
// It reads the same configuration as the daemon (file, environment, flags), so it follows daemon.healthPort.
import { EXIT, type Command } from './command.ts';
import { flagCommand } from './flag-command.ts';
import { CONFIG_HELP, CONFIG_OPTIONS, configFlags } from './common-flags.ts';
import { loadConfig } from '../config/load-config.ts';

const HELP = `Usage: offersync healthcheck [--ready] [flags]

Exit 0 when the daemon on this machine answers /healthz (with --ready: /readyz) with 200, 1 otherwise
(within 4 s). A wildcard daemon.healthHost (0.0.0.0, ::) is asked on loopback.

  --ready   ask /readyz: the first reconcile is done and the writer lease is held

${CONFIG_HELP}

Examples:
  offersync healthcheck && echo up
  offersync healthcheck --ready                # in a container HEALTHCHECK
`;

const OPTIONS = { ...CONFIG_OPTIONS, ready: { type: 'boolean' } } as const;

export const command: Command = flagCommand({
  name: 'healthcheck',
  options: OPTIONS,
  help: HELP,
  async run({ values }, io) {
    let url: string;
    try {
      const { daemon } = loadConfig({ flags: configFlags(values), env: io.env, cwd: io.cwd });
      if (daemon.healthPort === 0) throw new Error('daemon.healthPort is 0: the health endpoint is off');
      const host = ['0.0.0.0', '::', ''].includes(daemon.healthHost) ? '127.0.0.1' : daemon.healthHost;
      const path = values.ready ? '/readyz' : '/healthz';
      url = `http://${host.includes(':') ? `[${host}]` : host}:${daemon.healthPort}${path}`;
    } catch (err) {
      io.stderr.write(`offersync healthcheck: ${(err as Error).message}\n`);
      return EXIT.usage;
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(4000) });
      io.stdout.write(`${url}: ${res.status}\n`);
      return res.ok ? EXIT.ok : EXIT.failed;
    } catch (err) {
      io.stdout.write(`${url}: ${(err as Error).message}\n`);
      return EXIT.failed;
    }
  },
});
