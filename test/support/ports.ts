// A free TCP port on 127.0.0.1, for a server a test starts in a child process (a daemon's health port, a sandbox
// started by the CLI): the port is closed again before it is handed out, so the child can bind it.
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
