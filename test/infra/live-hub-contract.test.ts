import { InProcessLiveHub } from '../../src/infra/live-hub.js';
import { liveHubContract } from '../support/live-hub-contract.js';

/** The in-process live hub against the contract every hub keeps (the Redis run: test/scale-out/live-hub-redis.test.ts). */
liveHubContract('in-process', async () => {
  const hub = new InProcessLiveHub();
  return { first: hub, second: hub, close: () => hub.close() };
});
