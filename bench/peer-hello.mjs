// The peer of the benchmark: a bare Fastify hello-world server, with the same fastify
// version as Maproom (from node_modules). Plain JavaScript so that it runs on node alone.
// Listens on 127.0.0.1 and PORT (0 = any free port) and prints the address it got.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));

const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
console.log(`Peer is running at ${address}`);

const shutdown = () => app.close().then(() => process.exit(0));
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
