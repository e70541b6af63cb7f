/** Whether a TCP port can be listened on (checked for every component before anything starts). */
import { createServer } from 'node:net';

export function portIsFree(port: number, host: string): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
