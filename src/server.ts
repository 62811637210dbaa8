import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const { app, database, drain } = await buildApp(config);
  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info(`Maproom listening at ${address} (database: ${database.dialect}, data: ${config.dataDir})`);
  console.log(
    `\nMaproom is running at ${address}\n` +
      `  Open it in a browser: sign up, create a room, and share its address with your team.\n` +
      `  API reference:  ${address}/api/docs\n` +
      `  From a script:  curl -X POST ${address}/api/auth/signup -H 'Content-Type: application/json' \\\n` +
      `                    -d '{"email":"you@example.com","password":"a-long-password"}'\n`,
  );

  // SIGTERM (a deployment stopping or restarting it) drains first, so that a proxy stops sending
  // it work; SIGINT (Ctrl-C at a terminal) closes at once. Either way the close has 10 s.
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    const drainMs = signal === 'SIGTERM' ? config.shutdownDrainMs : 0;
    app.log.info(`${signal} received: draining for ${drainMs} ms, then closing`);
    const force = setTimeout(() => process.exit(1), drainMs + 10_000).unref();
    try {
      await drain(drainMs);
      await app.close();
    } finally {
      clearTimeout(force);
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  console.error('Maproom failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
