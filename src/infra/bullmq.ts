import { redisNamespace } from './redis.js';

/**
 * How BullMQ reaches the deployment's Redis: its own connections from the URL (BullMQ opens
 * and closes them), and the deployment's key prefix (`maproom:<database index>`), so that
 * deployments, and test files, on different database indexes stay apart.
 */
export function bullmqConnection(url: string) {
  return { connection: { url, connectionName: 'maproom' }, prefix: redisNamespace(url).replace(/:$/, '') };
}
